"""medlit-mcp: an MCP server for the biomedical literature workflow."""

from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("medlit-mcp")
except PackageNotFoundError:  # running from a source tree that is not installed
    __version__ = "0.0.0"
