"""FastMCP's OpenAPI proxy as a user runs it: `FastMCP.from_openapi` over stdio.

Usage: fastmcp_server.py SPEC BASE_URL [BEARER_TOKEN]
"""

import json
import sys

import httpx2
import yaml
from fastmcp import FastMCP


def main():
    spec_path, base_url = sys.argv[1], sys.argv[2]
    token = sys.argv[3] if len(sys.argv) > 3 else None
    with open(spec_path) as f:
        spec = json.load(f) if spec_path.endswith(".json") else yaml.safe_load(f)
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    client = httpx2.AsyncClient(base_url=base_url, headers=headers, timeout=30)
    FastMCP.from_openapi(openapi_spec=spec, client=client, name="bench").run(show_banner=False)


if __name__ == "__main__":
    main()
