"""The trulymem exception tree.

    TrulyMemError
     ├── InvalidInput (ValueError)   bad input; ``field`` names what is wrong
     ├── NotFound (KeyError, ValueError)  a user, task, fact or node that does not exist
     ├── Conflict                    the request contradicts stored state (e.g. task exists)
     ├── Forbidden (PermissionError) outside the caller's scope (a user-scoped call naming another user)
     ├── ConfigError                 settings or config file cannot be used
     ├── LLMError                    the language model endpoint failed or refused
     ├── BudgetExceeded              a request's time budget ran out before it changed anything
     └── StoreError                  the storage backend failed
          ├── StoreBusy              a lock or connection was not free in time: retry shortly
          └── SchemaError            the database schema is newer or broken

The typed Python methods raise these; ``TrulyMem.call`` / ``call_tool`` turn
them into ``ToolResult.error`` data that can be shown to an LLM.
"""

from __future__ import annotations


class TrulyMemError(Exception):
    """Root of every error trulymem raises on purpose."""

    code = "error"

    def __init__(self, message: str, *, field: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.field = field

    def __str__(self) -> str:
        return f"{self.field}: {self.message}" if self.field else self.message

    def to_dict(self) -> dict[str, str | None]:
        return {"type": self.code, "field": self.field, "message": self.message}


class InvalidInput(TrulyMemError, ValueError):
    code = "invalid_input"


class NotFound(TrulyMemError, KeyError, ValueError):
    """Also a ``ValueError``: mem0's own code (and code written against it) catches
    ``ValueError`` for an unknown memory id."""

    code = "not_found"

    # KeyError.__str__ would repr() the message; keep the plain text.
    __str__ = TrulyMemError.__str__


class Conflict(TrulyMemError):
    code = "conflict"


class Forbidden(TrulyMemError, PermissionError):
    """A call reaching outside its caller's scope: a memory opened for one user naming another.
    Nothing is read or changed; only an admin scope (``Scope.everyone()``, an admin key) names users."""

    code = "forbidden"


class ConfigError(TrulyMemError):
    code = "config_error"


class LLMError(TrulyMemError):
    """A chat model call failed: bad key, unknown model, unreachable server, or
    retries used up. ``field`` names the setting to look at when there is one."""

    code = "llm_error"


class BudgetExceeded(TrulyMemError):
    """The request's wall-clock budget (``trulymem.budget``) ran out; raised only where
    stopping leaves nothing half done, so nothing was changed."""

    code = "budget_exceeded"


class StoreError(TrulyMemError):
    code = "store_error"


class StoreBusy(StoreError):
    """The database stayed locked by another writer (SQLite's busy timeout, PostgreSQL's lock
    timeout) or had no free connection: nothing was changed, and the same call can be retried."""

    code = "store_busy"


class SchemaError(StoreError):
    code = "schema_error"
