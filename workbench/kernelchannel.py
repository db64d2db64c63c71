"""What may pass between a viewer's browser and a dashboard kernel, and in which form.

A served page talks to its kernel over one websocket in Jupyter's binary
``v1.kernel.websocket.jupyter.org`` framing: an 8-byte little-endian count of
offsets, the offsets (8 bytes each), then the channel name and the message
parts. Frames from a viewer are checked before anything reads them
(:func:`parse_v1`: an unchecked count made the server loop at 100 % CPU), and
no traceback, file path or stderr text reaches a viewer (:func:`scrub`: it
becomes :data:`PLAIN_ERROR`; the details stay in the server's log). The
server wiring is :mod:`workbench.dashboard_server`; why: docs/dashboards.md.
"""
from __future__ import annotations

import json
import re

__all__ = ["V1_PROTOCOL", "PLAIN_ERROR", "parse_v1", "build_v1", "scrub", "scrub_frame"]

V1_PROTOCOL = "v1.kernel.websocket.jupyter.org"

#: what a viewer reads instead of a traceback or a warning from the kernel
PLAIN_ERROR = "Something went wrong while computing this view. Try other values, or reload the page."

#: a frame has a channel, four message parts and a handful of buffers
MAX_PARTS = 64

# markers of the parts worth decoding: everything else passes untouched (and undecoded)
_SUSPECT = re.compile(rb'"(traceback|stderr|error)"')


def parse_v1(frame: bytes, max_parts: int = MAX_PARTS) -> tuple[str, list[bytes]] | None:
    """``(channel, parts)`` of a v1 frame, or ``None`` when it is not a well-formed one.

    Checked before any list is built: the offset count (at least the channel
    and four message parts, at most ``max_parts``), the offsets (ascending,
    the first right after the offset table, the last at most the frame's
    length: each part runs from its offset to the next) and the channel
    name (ASCII).
    """
    if not isinstance(frame, (bytes, bytearray, memoryview)):
        return None
    frame = bytes(frame)
    if len(frame) < 8:
        return None
    count = int.from_bytes(frame[:8], "little")
    if not 6 <= count <= max_parts + 2 or len(frame) < 8 * (count + 1):
        return None
    offsets = [int.from_bytes(frame[8 * (i + 1):8 * (i + 2)], "little") for i in range(count)]
    if offsets[0] != 8 * (count + 1) or any(b < a for a, b in zip(offsets, offsets[1:])) \
            or offsets[-1] > len(frame):
        return None
    try:
        channel = frame[offsets[0]:offsets[1]].decode("ascii")
    except UnicodeDecodeError:
        return None
    return channel, [frame[offsets[i]:offsets[i + 1]] for i in range(1, count - 1)]


def build_v1(channel: str, parts: list[bytes]) -> bytes:
    """The v1 frame of ``channel`` and ``parts`` (Jupyter Server's own layout)."""
    from jupyter_server.services.kernels.connection.base import serialize_msg_to_ws_v1

    return serialize_msg_to_ws_v1(list(parts), channel)


def _plain(kind: object, part: dict) -> dict:
    """``part``, an ``error`` or a stderr ``stream`` (a message's content, or an output in the
    notebook format), made plain; any other ``part`` as it is."""
    if kind == "error":
        return {**part, "ename": "Error", "evalue": PLAIN_ERROR, "traceback": [PLAIN_ERROR]}
    if kind == "stream" and part.get("name") == "stderr":
        return {**part, "text": PLAIN_ERROR + "\n"}
    return part


def scrub(msg_type: str, content: dict) -> dict | None:
    """``content`` of a kernel message of type ``msg_type`` without tracebacks,
    or ``None`` when it carries none (pass it on unchanged)."""
    if msg_type in ("execute_reply", "inspect_reply", "complete_reply") and content.get("status") == "error":
        msg_type = "error"
    if msg_type != "comm_msg":
        clean = _plain(msg_type, content)
        return None if clean is content else clean
    state = (content.get("data") or {}).get("state")  # an output widget's captured outputs
    outputs = state.get("outputs") if isinstance(state, dict) else None
    if not isinstance(state, dict) or not isinstance(outputs, list):
        return None
    plain = [_plain(o.get("output_type"), o) if isinstance(o, dict) else o for o in outputs]
    if all(c is o for c, o in zip(plain, outputs)):
        return None
    return {**content, "data": {**content["data"], "state": {**state, "outputs": plain}}}


def scrub_frame(frame: bytes) -> bytes:
    """A v1 frame from the kernel with :func:`scrub` applied (the same bytes when
    nothing needed it; only frames that mention a traceback, stderr or an
    error are decoded)."""
    if not _SUSPECT.search(frame):
        return frame
    parsed = parse_v1(frame, max_parts=1 << 16)
    if parsed is None or len(parsed[1]) < 4:
        return frame
    channel, parts = parsed
    try:
        header = json.loads(parts[0])
        content = json.loads(parts[3])
    except (ValueError, UnicodeDecodeError):
        return frame
    clean = scrub(header.get("msg_type", ""), content) if isinstance(content, dict) else None
    if clean is None:
        return frame
    parts = list(parts)
    parts[3] = json.dumps(clean).encode("utf-8")
    return build_v1(channel, parts)
