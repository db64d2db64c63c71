"""What may pass between a viewer's browser and a dashboard kernel, and in which form.

A served page talks to its kernel over one websocket using Jupyter's binary
``v1.kernel.websocket.jupyter.org`` framing: an 8-byte little-endian count of
offsets, the offsets (8 bytes each), then the channel name and the message
parts (header, parent header, metadata, content, buffers).

Two rules are kept here, away from the server wiring in :mod:`workbench.serve`:

* **frames from a viewer are checked before anything reads them.** Voila and
  Jupyter Server read the offset count straight from the first 8 bytes and
  build a list that long: a frame claiming 2**60 offsets, or a message in the
  older JSON framing (whose first bytes read as a huge count), makes the
  server loop at 100 % CPU while its memory grows by tens of MB a second.
  :func:`parse_v1` accepts a frame only when its offsets are few, ascending and
  inside the frame; the server refuses connections without the v1
  subprotocol altogether;
* **no traceback, file path or source line reaches a viewer.** :func:`scrub`
  rewrites every outgoing message that could carry one: an ``error`` output,
  text a kernel wrote to stderr, and the same outputs captured by an output
  widget inside a ``comm_msg``, into :data:`PLAIN_ERROR`. The full details
  stay in the server's own log.
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


def _plain_output(output: dict) -> dict:
    """An ``error`` or stderr ``stream`` output (notebook output format), made plain."""
    if output.get("output_type") == "error":
        return {**output, "ename": "Error", "evalue": PLAIN_ERROR, "traceback": [PLAIN_ERROR]}
    if output.get("output_type") == "stream" and output.get("name") == "stderr":
        return {**output, "text": PLAIN_ERROR + "\n"}
    return output


def scrub(msg_type: str, content: dict) -> dict | None:
    """``content`` of a kernel message of type ``msg_type`` without tracebacks,
    or ``None`` when it carries none (pass it on unchanged)."""
    if msg_type == "error" or (msg_type in ("execute_reply", "inspect_reply", "complete_reply")
                               and content.get("status") == "error"):
        return {**content, "ename": "Error", "evalue": PLAIN_ERROR, "traceback": [PLAIN_ERROR]}
    if msg_type == "stream" and content.get("name") == "stderr":
        return {**content, "text": PLAIN_ERROR + "\n"}
    if msg_type == "comm_msg":  # an output widget's captured outputs
        state = (content.get("data") or {}).get("state")
        outputs = state.get("outputs") if isinstance(state, dict) else None
        if (isinstance(state, dict) and isinstance(outputs, list)
                and any(isinstance(o, dict) and _plain_output(o) is not o for o in outputs)):
            clean = [_plain_output(o) if isinstance(o, dict) else o for o in outputs]
            return {**content, "data": {**content["data"], "state": {**state, "outputs": clean}}}
    return None


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
