"""workbench.kernelchannel without a server: v1 frames are checked before they
are read, and what a kernel sends loses its tracebacks, paths and stderr text.

Frames are built here by hand (struct, the layout of Jupyter's v1 websocket
protocol) and with Jupyter Server's own serializer, so a parser that merely
mirrors the builder cannot pass alone.
"""
from __future__ import annotations

import json
import struct

import pytest

from workbench.kernelchannel import PLAIN_ERROR, parse_v1, scrub, scrub_frame

TRACEBACK = ['Traceback (most recent call last):', '  File "/work/main/workbench/ui/app.py", line 12, in on_change',
             '    total = compute(shots)', "OverflowError: int too large to convert to float"]


def by_hand(channel: str, parts: list[bytes]) -> bytes:
    """The v1 layout: offset count, offsets (channel start, then each part's end), channel, parts."""
    count = len(parts) + 2
    offsets = [8 * (count + 1)]
    offsets.append(offsets[-1] + len(channel))
    for p in parts:
        offsets.append(offsets[-1] + len(p))
    return struct.pack(f"<{count + 1}Q", count, *offsets) + channel.encode() + b"".join(parts)


def message_parts(msg_type: str, content: dict, *buffers: bytes) -> list[bytes]:
    return [json.dumps({"msg_type": msg_type, "msg_id": "1"}).encode(), b"{}", b"{}",
            json.dumps(content).encode(), *buffers]


def test_parse_reads_what_jupyter_server_writes():
    from jupyter_server.services.kernels.connection.base import deserialize_msg_from_ws_v1, serialize_msg_to_ws_v1

    parts = message_parts("comm_msg", {"comm_id": "c", "data": {"method": "update"}}, b"\x00\x01\x02", b"xyz")
    frame = serialize_msg_to_ws_v1(parts, "iopub")
    assert frame == by_hand("iopub", parts)
    assert parse_v1(frame) == ("iopub", parts) == deserialize_msg_from_ws_v1(frame)


@pytest.mark.parametrize("frame", [
    b"",  # empty
    b"\x01\x02",  # shorter than the count
    struct.pack("<Q", 2**60) + b"\x00" * 64,  # the count that made the server loop
    struct.pack("<Q", 10**6) + b"\x00" * 64,  # a plausible-looking but huge count
    struct.pack("<Q", 3) + struct.pack("<3Q", 32, 35, 40) + b"abcdefgh",  # too few parts for a message
    json.dumps({"header": {}, "channel": "shell"}).encode(),  # the legacy JSON framing, as bytes
    "a text frame",
])
def test_parse_refuses_what_is_not_a_v1_frame(frame):
    assert parse_v1(frame) is None


def test_parse_refuses_offsets_outside_the_frame_or_backwards():
    good = by_hand("shell", message_parts("comm_info_request", {}))
    assert parse_v1(good) is not None
    count = int.from_bytes(good[:8], "little")
    past_end = bytearray(good)
    past_end[8 * count:8 * count + 8] = (len(good) + 1).to_bytes(8, "little")
    assert parse_v1(bytes(past_end)) is None
    backwards = bytearray(good)
    backwards[16:24] = (8 * (count + 1) - 1).to_bytes(8, "little")
    assert parse_v1(bytes(backwards)) is None
    too_many = by_hand("shell", message_parts("comm_msg", {}, *[b"b"] * 70))
    assert parse_v1(too_many) is None


def test_error_output_becomes_the_plain_sentence():
    content = {"ename": "OverflowError", "evalue": "int too large", "traceback": TRACEBACK}
    clean = scrub("error", content)
    assert clean["traceback"] == [PLAIN_ERROR] and clean["evalue"] == PLAIN_ERROR
    assert "OverflowError" not in json.dumps(clean) and "/work/" not in json.dumps(clean)
    assert scrub("execute_reply", {"status": "error", **content})["traceback"] == [PLAIN_ERROR]


def test_stderr_becomes_the_plain_sentence_but_stdout_and_plots_pass():
    assert scrub("stream", {"name": "stderr", "text": "\n".join(TRACEBACK)}) == \
        {"name": "stderr", "text": PLAIN_ERROR + "\n"}
    assert scrub("stream", {"name": "stdout", "text": "3 hits"}) is None
    assert scrub("comm_msg", {"comm_id": "c", "data": {"method": "update", "state": {"value": 4}}}) is None
    assert scrub("status", {"execution_state": "idle"}) is None


def test_output_widget_loses_captured_tracebacks_but_keeps_other_outputs():
    kept = {"output_type": "display_data", "data": {"text/plain": "ok"}, "metadata": {}}
    content = {"comm_id": "c", "data": {"method": "update", "buffer_paths": [], "state": {"outputs": [
        kept, {"output_type": "error", "ename": "ValueError", "evalue": "x", "traceback": TRACEBACK},
        {"output_type": "stream", "name": "stderr", "text": TRACEBACK[1]}]}}}
    clean = scrub("comm_msg", content)
    outputs = clean["data"]["state"]["outputs"]
    assert outputs[0] == kept
    assert outputs[1]["traceback"] == [PLAIN_ERROR] and outputs[2]["text"] == PLAIN_ERROR + "\n"
    assert "/work/" not in json.dumps(clean)


def test_scrub_frame_rewrites_only_the_content_and_keeps_buffers():
    parts = message_parts("error", {"ename": "E", "evalue": "v", "traceback": TRACEBACK}, b"\xff\x00buffer")
    frame = by_hand("iopub", parts)
    channel, out = parse_v1(scrub_frame(frame))
    assert channel == "iopub" and out[:3] == parts[:3] and out[4] == parts[4]
    assert json.loads(out[3])["traceback"] == [PLAIN_ERROR]
    assert b"/work/" not in scrub_frame(frame)


def test_scrub_frame_leaves_other_frames_byte_for_byte():
    for parts in (message_parts("status", {"execution_state": "busy"}),
                  message_parts("comm_msg", {"data": {"state": {"x": [1, 2]}}}, b"\x00" * 100),
                  message_parts("stream", {"name": "stdout", "text": "an error in the text is fine"})):
        frame = by_hand("iopub", parts)
        assert scrub_frame(frame) is frame or scrub_frame(frame) == frame
