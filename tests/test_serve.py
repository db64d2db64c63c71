"""workbench.serve without a browser: port choice, staging only the dashboards,
the landing page, the committed Voila config, the offline template, and who a
request is to the server's identity provider (the token, the link channel).

The live server (routes, read-only checks, kernels) is tested in tests/browser/.
"""
from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from workbench import serve
from workbench.errors import InputError

NAMES = ["changes.ipynb", "forgotten.ipynb", "gunfire.ipynb", "antares.ipynb", "compare.ipynb", "diagnostics.ipynb",
         "changes_turn.ipynb", "before_after.ipynb"]


def test_the_five_dashboards_are_served_by_name():
    assert [d.notebook for d in serve.DASHBOARDS] == NAMES
    assert [d.path for d in serve.DASHBOARDS] == [f"/voila/render/{n}" for n in NAMES]


def test_port_comes_from_argument_then_env_then_default(monkeypatch):
    monkeypatch.delenv("PORT", raising=False)
    assert serve.resolve_port(None) == 8866
    monkeypatch.setenv("PORT", "9123")
    assert serve.resolve_port(None) == 9123
    assert serve.resolve_port("0") == 0
    assert serve.resolve_port(4242) == 4242


@pytest.mark.parametrize("value", ["abc", "-1", "65536", "8866.5"])
def test_bad_port_in_env_is_an_input_error_naming_it(monkeypatch, value):
    monkeypatch.setenv("PORT", value)
    with pytest.raises(InputError, match=rf"PORT: expected an integer from 0 to 65535, got '?{re.escape(value)}'?"):
        serve.resolve_port(None)


def test_main_reports_a_bad_port_and_exits_2(monkeypatch, capsys):
    monkeypatch.setenv("PORT", "nope")
    assert serve.main([]) == 2
    assert "PORT: expected an integer from 0 to 65535" in capsys.readouterr().err


def _notebook(path, marker):
    path.write_text(json.dumps({"cells": [{"cell_type": "code", "source": marker, "metadata": {},
                                            "outputs": [], "execution_count": None}],
                                "metadata": {}, "nbformat": 4, "nbformat_minor": 5}))


def test_staging_copies_only_the_dashboards(tmp_path):
    src = tmp_path / "notebooks"
    src.mkdir()
    for n in NAMES + ["scratch.ipynb", "teach.ipynb"]:
        _notebook(src / n, n)
    (src / "notes.md").write_text("private")
    dest = tmp_path / "served"
    staged = serve.stage_notebooks(src, dest)
    assert sorted(p.name for p in dest.iterdir()) == sorted(NAMES)
    assert [p.name for p in staged] == NAMES
    assert (dest / "gunfire.ipynb").read_text() == (src / "gunfire.ipynb").read_text()


def test_staging_names_the_missing_notebooks(tmp_path):
    src = tmp_path / "notebooks"
    src.mkdir()
    _notebook(src / "changes.ipynb", "x")
    with pytest.raises(InputError, match=r"notebooks: expected a folder holding changes\.ipynb, .*got .*"
                                         r"\(missing: forgotten\.ipynb, gunfire\.ipynb, antares\.ipynb, compare\.ipynb, diagnostics\.ipynb, "
                                         r"changes_turn\.ipynb, before_after\.ipynb\)"):
        serve.stage_notebooks(src, tmp_path / "served")


def test_landing_page_links_each_dashboard_relative_to_itself_and_nothing_external():
    page = serve.landing_page()
    hrefs = re.findall(r'href="([^"]+)"', page)
    assert [h for h in hrefs if h.startswith("voila/")] == [f"voila/render/{n}" for n in NAMES]
    assert not [h for h in hrefs if h.startswith("/")]  # under any base URL
    assert not re.search(r'(src|href)="(https?:)?//', page)
    for d in serve.DASHBOARDS:
        assert d.title in page


def test_committed_voila_config_is_read_only_and_preheated():
    conf = json.loads((serve.VOILA_DIR / "voila.json").read_text())
    vc = conf["VoilaConfiguration"]
    assert vc["strip_sources"] is True and vc["show_tracebacks"] is False
    assert vc["preheat_kernel"] is True and vc["default_pool_size"] == 1
    assert vc["allow_template_override"] == "NO" and vc["allow_theme_override"] == "NO"
    assert vc["file_allowlist"] == [] and vc["template"] == "workbench"
    assert conf["Voila"]["ip"] == "127.0.0.1"
    # a kernel whose page never connected (or left without a goodbye) is released within about
    # 30 s of its notebook going idle; a busy one (rendering, or preheated and waiting) never is
    cull = conf["MappingKernelManager"]
    assert cull["cull_connected"] is False and cull["cull_busy"] is False
    assert cull["cull_idle_timeout"] + cull["cull_interval"] <= serve.BUSY_RETRY_S
    # --release-after's default is exactly this culler
    assert serve.cull_settings() == {k: cull[k] for k in ("cull_idle_timeout", "cull_interval")}
    # a busy machine delivers a cell's outputs seconds after its reply: nbclient's 4 s default
    # dropped the dashboard's whole output (a blank page) for 5-10 of 16 simultaneous viewers
    assert conf["VoilaExecutor"]["iopub_timeout"] >= 60


def test_a_shorter_release_still_idles_first_and_never_outlasts_its_number():
    """``--release-after S``: a kernel idle for the culler's timeout is released at its next
    look, at most S seconds after it went idle; it idles at least half of S (never culled
    while a slow page is still connecting, within a second of being served)."""
    low, high = serve.RELEASE_AFTER_RANGE
    for release_after in (*range(low, 200), high):
        cull = serve.cull_settings(release_after)
        idle, every = cull["cull_idle_timeout"], cull["cull_interval"]
        assert idle >= 1 and every >= 1 and isinstance(idle, int) and isinstance(every, int)
        assert idle + every == release_after and idle >= release_after / 2, release_after


def test_the_busy_page_says_the_servers_own_wait():
    assert "Try again in 30 seconds" in serve.notice_page("busy")[1]
    status, page = serve.notice_page("busy", 6)
    assert status == 503 and "Try again in 6 seconds" in page and "{retry}" not in page


TEMPLATE = serve.TEMPLATE_ROOT / "voila" / "templates" / "workbench"


def _block(text: str, name: str) -> str:
    return text[text.index(f"{{%- block {name} -%}}"):text.index(f"{{%- endblock {name} -%}}")]


def test_template_loads_the_workbench_front_end_and_nothing_from_elsewhere():
    """Our template keeps the stock `lab` page (Voila's cell loop and page config)
    but replaces the blocks that load Voila's front end: the CSS block (its CDN
    stylesheets, nbconvert's stylesheet, voila-style.js), the head's log script
    and the footer's voila.js. It names only files of its own static folder.
    (tests/browser checks end to end that no request leaves 127.0.0.1.)"""
    from voila.paths import collect_template_paths

    ours = (TEMPLATE / "index.html.j2").read_text()
    assert "{%- extends 'lab/index.html.j2' -%}" in ours
    assert "https://" not in ours and "http://" not in ours
    for block in ("notebook_css", "html_head_js", "body_footer"):
        assert "super()" not in _block(ours, block), block
    footer = _block(ours, "body_footer")
    assert "voila_setup_labextensions" not in footer and 'include_js("static/workbench.js")' in footer
    named = re.findall(r"""include_(?:js|css|url)\(["']static/([^"']+)["']\)""", ours)
    assert sorted(set(named)) == ["workbench.css", "workbench.js"]
    for name in named:
        assert (TEMPLATE / "static" / name).stat().st_size > 1000, name
    # what the replaced blocks would have loaded is still there in the stock template
    stock_path = next(p for p in (f"{d}/lab/index.html.j2" for d in collect_template_paths(["voila"], "lab"))
                      if __import__("os").path.exists(p))
    stock = open(stock_path).read()
    assert "https://cdn" in _block(stock, "notebook_css") and "voila_setup_labextensions" in _block(stock, "body_footer")


def test_the_front_end_bundle_carries_its_build_edits_and_every_licence():
    """The committed bundle is the build of scripts/frontend/: anywidget's wait for a
    plot's module lengthened (a plot whose module came after 2 s stopped following its
    sliders), and LICENSES.txt names every package it pins."""
    bundle = (TEMPLATE / "static" / "workbench.js").read_text()
    assert "AbortSignal.timeout(3e5)" in bundle and "AbortSignal.timeout(2e3)" not in bundle
    assert "Failed to initialize model" in bundle
    assert 'define(["@jupyter-widgets/base"]' not in bundle  # anywidget's AMD wrapper replaced by the build
    package = json.loads((Path(__file__).resolve().parent.parent / "scripts" / "frontend" / "package.json").read_text())
    assert package["dependencies"]
    licences = (TEMPLATE / "static" / "LICENSES.txt").read_text()
    for name, version in package.get("dependencies", {}).items():
        if name != "esbuild":  # the build tool, not in the bundle
            assert f"{name} {version} (" in licences, name


def test_the_front_end_bundles_every_widget_class_the_dashboards_make():
    """The bundle carries only the controls' modules of the classes the dashboards make
    (scripts/frontend/src/manager.js names them), and stands in for jQuery: each ipywidgets
    class the workbench's code names (``W.Name``), with its style's class, has its model and
    view among the bundle's exports; a class not bundled would be drawn as an error widget."""
    import ipywidgets

    root = Path(__file__).resolve().parent.parent
    code = "".join(p.read_text() for p in (root / "workbench").rglob("*.py"))
    named = sorted(set(re.findall(r"\bW\.([A-Z]\w*)\b", code)))
    assert {"IntSlider", "Dropdown", "Tab", "Accordion", "HTML"} <= set(named), named
    bundle = (TEMPLATE / "static" / "workbench.js").read_text()
    wanted = set()
    for name in named:
        traits = getattr(ipywidgets, name).class_traits()
        style = traits.get("style")
        for cls_traits in (traits, style.klass.class_traits() if style is not None else {}):
            for key in ("_model_name", "_view_name"):
                value = cls_traits[key].default_value if key in cls_traits else None
                if value:
                    wanted.add(value)
    assert {"IntSliderModel", "IntSliderView", "SliderStyleModel", "LayoutModel"} <= wanted, wanted
    assert not [name for name in sorted(wanted) if f"{name}:" not in bundle]
    assert "ColorPickerModel:" not in bundle and "DatePickerView:" not in bundle  # controls no dashboard makes
    assert "jQuery requires a window with a document" not in bundle  # jQuery itself is not bundled


def test_the_front_end_speaks_to_the_locked_widget_packages():
    """The bundle's widget packages are those of the Python packages the kernels run
    (requirements/run.txt): anywidget's front end of the same version, ipywidgets 8's
    controls 5 and base 6 (widget protocol 2). A new lock needs a new build (static/VENDORED.md)."""
    root = Path(__file__).resolve().parent.parent
    deps = json.loads((root / "scripts" / "frontend" / "package.json").read_text())["dependencies"]
    locked = dict(re.findall(r"^([A-Za-z0-9_.-]+)==(\S+)", (root / "requirements" / "run.txt").read_text(), re.M))
    assert deps["anywidget"] == locked["anywidget"], (deps["anywidget"], locked["anywidget"])
    assert locked["ipywidgets"].startswith("8.")
    assert deps["@jupyter-widgets/controls"].startswith("5.") and deps["@jupyter-widgets/base"].startswith("6.")


@pytest.mark.parametrize("env, value, expected", [
    ("HOST", None, "127.0.0.1"), ("HOST", "127.0.0.2", "127.0.0.2"), ("HOST", "0.0.0.0", "0.0.0.0"),
    ("HOST", "::1", "::1"), ("HOST", "dice.local", "dice.local"),
    ("BASE_URL", None, "/"), ("BASE_URL", "/", "/"), ("BASE_URL", "/dice", "/dice/"),
    ("BASE_URL", "/dice/", "/dice/"), ("BASE_URL", "/club/dice-2/", "/club/dice-2/"),
])
def test_host_and_base_url_come_from_the_environment(monkeypatch, env, value, expected):
    for name in ("HOST", "BASE_URL"):
        monkeypatch.delenv(name, raising=False)
    if value is not None:
        monkeypatch.setenv(env, value)
    resolve = serve.resolve_host if env == "HOST" else serve.resolve_base_url
    assert resolve(None) == expected


def test_an_option_wins_over_its_environment_variable(monkeypatch):
    monkeypatch.setenv("HOST", "127.0.0.3")
    monkeypatch.setenv("BASE_URL", "/env/")
    monkeypatch.setenv("WORKBENCH_TOKEN", "from-the-environment")
    monkeypatch.setenv("MAX_KERNELS", "7")
    assert serve.resolve_host("127.0.0.2") == "127.0.0.2"
    assert serve.resolve_base_url("/dice/") == "/dice/"
    assert serve.resolve_token("given-on-the-line") == "given-on-the-line"
    assert serve.resolve_token(None) == "from-the-environment"
    assert serve.resolve_int(None, "MAX_KERNELS", "max-kernels", 40, 1, 10_000) == 7
    assert serve.resolve_int("3", "MAX_KERNELS", "max-kernels", 40, 1, 10_000) == 3


@pytest.mark.parametrize("env, value, message", [
    ("HOST", "not a host!", "HOST: expected an IP address or a host name"),
    ("BASE_URL", "/../etc/", "BASE_URL: expected a URL path such as /dice/"),
    ("BASE_URL", "no-slash", "BASE_URL: expected a URL path such as /dice/"),
    ("BASE_URL", "dice/", "BASE_URL: expected a URL path such as /dice/"),
    ("BASE_URL", "/dice//x/", "BASE_URL: expected a URL path such as /dice/"),
    ("BASE_URL", "/a b/", "BASE_URL: expected a URL path such as /dice/"),
    ("WORKBENCH_TOKEN", "short", "WORKBENCH_TOKEN: expected at least 8 letters"),
    ("MAX_KERNELS", "0", "MAX_KERNELS: expected an integer from 1 to 10000"),
    ("MAX_KERNELS", "many", "MAX_KERNELS: expected an integer from 1 to 10000"),
    ("POOL_SIZE", "33", "POOL_SIZE: expected an integer from 0 to 32"),
    ("RELEASE_AFTER", "14", "RELEASE_AFTER: expected an integer from 15 to 3600"),
    ("RELEASE_AFTER", "soon", "RELEASE_AFTER: expected an integer from 15 to 3600"),
])
def test_main_names_a_bad_environment_value_and_exits_2(monkeypatch, capsys, env, value, message):
    monkeypatch.setenv(env, value)
    assert serve.main([]) == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err
    if env == "WORKBENCH_TOKEN":
        assert value not in err  # a secret is never echoed


def test_loopback_hosts():
    assert serve.is_loopback("127.0.0.1") and serve.is_loopback("127.0.0.2") and serve.is_loopback("::1")
    assert serve.is_loopback("localhost")
    assert not serve.is_loopback("0.0.0.0") and not serve.is_loopback("192.168.1.20")
    assert not serve.is_loopback("dice.example.org")


def test_a_subset_of_dashboards_by_name():
    assert [d.notebook for d in serve.select_dashboards("changes, antares.ipynb")] == \
        ["changes.ipynb", "antares.ipynb"]
    assert serve.select_dashboards(None) == serve.DASHBOARDS
    with pytest.raises(InputError, match=r"dashboards: expected names among changes, forgotten"):
        serve.select_dashboards("changes,secrets")


@pytest.mark.parametrize("kind, status, words", [("token", 401, "access token"), ("busy", 503, "busy")])
def test_refusal_pages_speak_plainly(kind, status, words):
    got_status, page = serve.notice_page(kind)
    assert got_status == status
    assert words in page and "<title>" in page and 'name="viewport"' in page
    assert not re.search(r'(src|href)="(https?:)?//', page)


def test_the_access_cookie_is_not_the_token():
    value = serve.token_cookie_value("a-long-secret-token")
    assert "a-long-secret-token" not in value and len(value) == 64
    assert value == serve.token_cookie_value("a-long-secret-token") != serve.token_cookie_value("another-token")


class _Kernels:
    """A kernel manager whose ``shutdown_all`` fails ``fails`` times with ``error`` first."""

    def __init__(self, error, fails: int):
        self.error, self.fails, self.calls = error, fails, []

    async def shutdown_all(self, now=False):
        self.calls.append(now)
        if len(self.calls) <= self.fails:
            raise self.error


def test_stopping_shuts_down_the_rest_when_a_kernel_ended_meanwhile():
    import asyncio

    import tornado.web

    gone = tornado.web.HTTPError(404, "Kernel does not exist: k-1")
    km = _Kernels(gone, fails=2)
    asyncio.run(serve.shutdown_every_kernel(km, pause=0))
    assert km.calls == [True, True, True]  # the last pass shut down what the first ones left
    for error, fails, calls in ((tornado.web.HTTPError(500), 1, 1), (gone, 3, 3)):
        km = _Kernels(error, fails)
        with pytest.raises(tornado.web.HTTPError):
            asyncio.run(serve.shutdown_every_kernel(km, attempts=3, pause=0))
        assert len(km.calls) == calls



# ---------------------------------------------------------------- who a request is (no server started)

TOKEN = "playtest-Evening-7f3a9c"
KERNEL_ID = "0a1b2c3d-0000-4000-8000-00000000abcd"


def _handler(uri: str, headers: dict | None = None, cls=None, kernel_ids=(), **path_kwargs):
    """A Tornado handler of one request, built as Tornado builds it, never run."""
    from unittest import mock

    import tornado.httputil
    import tornado.web

    app = tornado.web.Application(base_url="/dice/", kernel_manager=set(kernel_ids))
    request = tornado.httputil.HTTPServerRequest(
        start_line=tornado.httputil.RequestStartLine("GET", uri, "HTTP/1.1"),
        headers=tornado.httputil.HTTPHeaders({"Host": "127.0.0.2:8866", **(headers or {})}), connection=mock.Mock())
    handler = (cls or tornado.web.RequestHandler)(app, request)
    handler.path_args, handler.path_kwargs = [], path_kwargs
    return handler


def test_the_identity_provider_knows_the_token_the_header_and_the_cookie_only():
    from workbench.dashboard_server import TokenIdentity

    identity = TokenIdentity(token=TOKEN)
    # (the cookie a token link sets, and the redirect without the token: tests/browser/test_serving.py)
    assert identity.get_user(_handler(f"/dice/voila/render/changes.ipynb?bs=4&token={TOKEN}")) is not None
    assert identity.get_user(_handler("/", {"Authorization": f"token {TOKEN}"})) is not None
    assert identity.get_user(_handler("/", {"Authorization": f"Bearer {TOKEN}"})) is not None
    assert identity.get_user(_handler("/", {"Cookie": f"{serve.TOKEN_COOKIE}={serve.token_cookie_value(TOKEN)}"}))
    for refused in (_handler("/"), _handler("/?token=wrong-token-123"), _handler("/", {"Authorization": "token x"}),
                    _handler("/", {"Cookie": f"{serve.TOKEN_COOKIE}={TOKEN}"}),  # the cookie is never the token
                    _handler(f"/?Token={TOKEN}")):
        assert identity.get_user(refused) is None, refused.request.uri
    assert TokenIdentity(token="").get_user(_handler("/")) is not None  # no token: everyone is a viewer


def test_the_link_channel_admits_only_a_kernel_this_server_runs():
    from voila.request_info_handler import RequestInfoSocketHandler

    from workbench.dashboard_server import TokenIdentity

    identity = TokenIdentity(token=TOKEN)
    channel = dict(cls=RequestInfoSocketHandler, kernel_ids=[KERNEL_ID])
    assert identity.get_user(_handler(f"/dice/voila/query/{KERNEL_ID}", kernel_id=KERNEL_ID, **channel))
    other = KERNEL_ID.replace("abcd", "ffff")
    assert identity.get_user(_handler(f"/dice/voila/query/{other}", kernel_id=other, **channel)) is None
    # the same id on any other route is no credential
    assert identity.get_user(_handler(f"/dice/api/kernels/{KERNEL_ID}/channels", kernel_ids=[KERNEL_ID],
                                      kernel_id=KERNEL_ID)) is None
