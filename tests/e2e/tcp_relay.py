"""A TCP relay between the browser and the real agent server whose connections can be cut.

Chromium's offline mode does not break a response already streaming, so to drop a connection
the way a weak network does, the app talks to the server through this relay and the test calls
`cut()`: every open connection is reset; new ones go through again. `freeze()` makes every open
connection go silent without closing it (a dead cell, a middlebox that forgot the flow): nothing
more is passed on it, in either direction. Bytes are otherwise passed unchanged.
"""

from __future__ import annotations

import socket
import struct
import threading


class TcpRelay:
    def __init__(self, target_host: str, target_port: int) -> None:
        self.target = (target_host, target_port)
        self._listener = socket.create_server(("127.0.0.1", 0))
        self.port = self._listener.getsockname()[1]
        self._open: set[socket.socket] = set()
        self._frozen: set[socket.socket] = set()
        self._lock = threading.Lock()
        self.cuts = 0
        self.heartbeats = 0  # `: heartbeat` comments passed on to the client (langgraph dev sends one every 5 s)
        threading.Thread(target=self._accept, daemon=True).start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def cut(self) -> int:
        """Reset every open connection (RST, as a dropped network does); return how many."""
        with self._lock:
            sockets, self._open = list(self._open), set()
        for sock in sockets:
            try:  # linger 0: a reset, not a polite close; shutdown wakes the pump blocked on it
                sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
                sock.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
        self.cuts += 1
        return len(sockets)

    def freeze(self) -> int:
        """Stop passing anything on every open connection, leaving it open; return how many."""
        with self._lock:
            self._frozen.update(self._open)
            return len(self._open)

    def close(self) -> None:
        self._listener.close()
        self.cut()

    def _accept(self) -> None:
        while True:
            try:
                client, _ = self._listener.accept()
            except OSError:
                return  # closed
            try:
                upstream = socket.create_connection(self.target)
            except OSError:
                client.close()
                continue
            with self._lock:
                self._open.update((client, upstream))
            for a, b in ((client, upstream), (upstream, client)):
                threading.Thread(target=self._pump, args=(a, b), daemon=True).start()

    def _pump(self, source: socket.socket, sink: socket.socket) -> None:
        try:
            while True:
                data = source.recv(65536)
                if not data:
                    break
                if source not in self._frozen:  # a frozen connection swallows what it receives
                    sink.sendall(data)
                    if b": heartbeat" in data:
                        self.heartbeats += 1
        except OSError:
            pass
        finally:
            for sock in (source, sink):
                with self._lock:
                    self._open.discard(sock)
                try:
                    sock.close()
                except OSError:
                    pass
