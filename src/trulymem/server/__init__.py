"""trulymem served to other programs: ``http`` (the HTTP API, FastAPI) and ``mcp``
(the MCP server). Both need an extra (``trulymem[server]``, ``trulymem[mcp]``);
import the module you need: this package imports neither."""
