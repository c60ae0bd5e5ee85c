"""``/docs`` without the network: Swagger UI from files installed with the server extra.

FastAPI's own page loads Swagger UI from a CDN, so offline (or behind a strict proxy)
``/docs`` is blank. ``fastapi-offline`` ships the Swagger UI files in its wheel; only
its files are used here, served under ``/docs/assets``."""

from __future__ import annotations

from importlib import resources

from fastapi import FastAPI
from fastapi.openapi.docs import get_swagger_ui_html
from fastapi.responses import HTMLResponse
from fastapi.staticfiles import StaticFiles

ASSETS = "/docs/assets"


def mount(app: FastAPI) -> None:
    """Serve ``/docs`` (the app must be built with ``docs_url=None, redoc_url=None``)."""
    static = resources.files("fastapi_offline") / "static"
    app.mount(ASSETS, StaticFiles(directory=str(static)), name="docs-assets")

    @app.get("/docs", include_in_schema=False)
    def docs() -> HTMLResponse:
        return get_swagger_ui_html(openapi_url=app.openapi_url or "/openapi.json", title=f"{app.title} API",
                                   swagger_js_url=f"{ASSETS}/swagger-ui-bundle.js",
                                   swagger_css_url=f"{ASSETS}/swagger-ui.css",
                                   swagger_favicon_url=f"{ASSETS}/favicon.png")
