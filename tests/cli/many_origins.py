"""Many robots.txt origins on this machine: every 127.x.y.z address is local (tests, bench).

``python many_origins.py --ips 250 --ports 4`` binds 1,000 listening sockets (250 loopback
addresses x 4 ports), prints their origins as one JSON list, then serves until stdin closes.
A line "stats" on stdin prints the robots.txt requests per origin as JSON. Origin ``k`` serves:
k % 10 == 9 -> 503; k % 10 == 8 -> 404; otherwise rules (GPTBot blocked on even k).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from collections import Counter


def body_for(k: int) -> tuple[int, bytes]:
    if k % 10 == 9:
        return 503, b"busy"
    if k % 10 == 8:
        return 404, b"no"
    text = "User-agent: *\nDisallow: /private/\nAllow: /private/ok\n"
    if k % 2 == 0:
        text += "\nUser-agent: GPTBot\nDisallow: /\n"
    return 200, text.encode()


async def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--ips", type=int, default=10)
    ap.add_argument("--ports", type=int, default=2)
    args = ap.parse_args()
    hits: Counter[str] = Counter()
    origins: list[str] = []

    def handler_for(k: int, origin: str):  # type: ignore[no-untyped-def]
        status, body = body_for(k)
        reason = {200: "OK", 404: "Not Found", 503: "Service Unavailable"}[status]

        async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
            try:
                while True:
                    head = await reader.readuntil(b"\r\n\r\n")
                    path = head.split(b" ", 2)[1].decode()
                    if path == "/robots.txt":
                        hits[origin] += 1
                        st, data, rs = status, body, reason
                    else:
                        st, data, rs = 404, b"", "Not Found"
                    writer.write(f"HTTP/1.1 {st} {rs}\r\nContent-Type: text/plain\r\n"
                                 f"Content-Length: {len(data)}\r\n\r\n".encode() + data)
                    await writer.drain()
            except (asyncio.IncompleteReadError, ConnectionError, asyncio.LimitOverrunError):
                pass
            finally:
                writer.close()

        return handle

    servers = []
    k = 0
    for i in range(args.ips):
        ip = f"127.0.{1 + i // 250}.{1 + i % 250}"
        for _ in range(args.ports):
            # the origin is only known after binding: bind first, then attach the handler
            holder: dict[str, object] = {}

            async def trampoline(r: asyncio.StreamReader, w: asyncio.StreamWriter,
                                 holder: dict[str, object] = holder) -> None:
                await holder["h"](r, w)  # type: ignore[operator]

            srv = await asyncio.start_server(trampoline, ip, 0, backlog=256)
            port = srv.sockets[0].getsockname()[1]
            origin = f"http://{ip}:{port}"
            holder["h"] = handler_for(k, origin)
            origins.append(origin)
            servers.append(srv)
            k += 1
    print(json.dumps(origins), flush=True)
    loop = asyncio.get_running_loop()
    reader = asyncio.StreamReader()
    await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), sys.stdin)
    while True:
        line = await reader.readline()
        if not line:
            break
        if line.strip() == b"stats":
            print(json.dumps(hits), flush=True)
    for s in servers:
        s.close()


if __name__ == "__main__":
    asyncio.run(main())
