"""The exceptions ome raises; the command line turns each into a one-line message naming the fix.

OmeError
├── CardError            a card file cannot be parsed or validated
├── UnsafeIdError        a card id or path would leave its library
├── CardNotFoundError    no card with that id in the searched libraries
├── ConfigError          the data dir or a config file is unusable
├── RegistryError        a signal pack or the compiled registry is invalid
├── SuiteError           an evaluation suite cannot be read
└── InstallError         an agent settings file cannot be safely changed
"""

from __future__ import annotations


class OmeError(Exception):
    """Base class; `code` is the stable machine-readable name used in `--json` errors."""

    code = "ome_error"


class CardError(OmeError):
    """A card that cannot be parsed or fails validation; `problems` holds every finding."""

    code = "invalid_card"

    def __init__(self, message: str, problems: tuple[str, ...] = ()) -> None:
        super().__init__(message)
        self.problems = problems or (message,)


class UnsafeIdError(OmeError):
    code = "unsafe_id"


class CardNotFoundError(OmeError):
    code = "card_not_found"


class ConfigError(OmeError):
    code = "config_error"


class RegistryError(OmeError):
    code = "registry_error"


class SuiteError(OmeError):
    code = "suite_error"


class InstallError(OmeError):
    code = "install_error"


__all__ = [
    "CardError",
    "CardNotFoundError",
    "ConfigError",
    "InstallError",
    "OmeError",
    "RegistryError",
    "SuiteError",
    "UnsafeIdError",
]
