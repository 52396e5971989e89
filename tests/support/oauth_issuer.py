"""A loopback OAuth issuer for the authentication tests: RFC 8414 metadata naming its JWKS, the
JWKS, and an RSA key that signs access tokens."""

from __future__ import annotations

import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import jwt

AUDIENCE = "https://medlit.example.org/mcp"


class Issuer:
    """A loopback OAuth issuer: RFC 8414 metadata naming its JWKS, and an RSA key to sign with."""

    def __init__(self) -> None:
        from cryptography.hazmat.primitives.asymmetric import rsa

        self.key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
        jwk = json.loads(jwt.algorithms.RSAAlgorithm.to_jwk(self.key.public_key()))
        self.jwks = {"keys": [{**jwk, "kid": "k1", "use": "sig", "alg": "RS256"}]}
        self.fetches: list[str] = []
        issuer = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                issuer.fetches.append(self.path)
                if self.path == "/.well-known/oauth-authorization-server":
                    body: Any = {"issuer": issuer.url, "jwks_uri": issuer.url + "/jwks.json"}
                elif self.path == "/jwks.json":
                    body = issuer.jwks
                else:
                    self.send_response(404)
                    self.end_headers()
                    return
                data = json.dumps(body).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def token(self, sub: str = "carol", **claims: Any) -> str:
        now = int(time.time())
        body = {"iss": self.url, "aud": AUDIENCE, "sub": sub, "iat": now, "exp": now + 600, **claims}
        return jwt.encode(body, self.key, algorithm="RS256", headers={"kid": "k1"})

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()
