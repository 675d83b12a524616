"""The user's settings: their names, defaults and ranges, and the one validation that both
`quizzer settings` and the app's settings screen use. No UI here."""

from __future__ import annotations

import difflib
import math
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from quizzer.content.language import LANGUAGES

if TYPE_CHECKING:
    from quizzer.progress.scheduling import SchedulerSettings

MAX_STEP_MIN = 43_200.0
"""The longest learning or relearning step: 30 days, in minutes."""
MAX_STEPS = 10
FSRS_WEIGHTS = 21
"""How many parameters FSRS-6 has."""
STEPS_RULE = (
    "minutes separated by commas, such as {example}: each above 0 and at most "
    f"{MAX_STEP_MIN:.0f} (30 days), at most {MAX_STEPS} steps, or nothing for none"
)


@dataclass(frozen=True)
class Setting:
    """One setting: its default, what it takes, and what it is for."""

    default: Any
    rule: str
    """What it takes, to complete 'NAME must be …'."""
    help: str


SETTINGS: dict[str, Setting] = {
    "desired_retention": Setting(
        0.9,
        "a number between 0.70 and 0.99",
        "target probability of recall when a review comes due",
    ),
    "new_per_day": Setting(
        15, "a whole number between 0 and 1000", "new questions introduced per day"
    ),
    "learning_steps_min": Setting(
        [1.0, 10.0], STEPS_RULE.format(example="1,10"), "learning steps in minutes, e.g. 1,10"
    ),
    "relearning_steps_min": Setting(
        [10.0], STEPS_RULE.format(example="10"), "relearning steps in minutes, e.g. 10"
    ),
    "fsrs_parameters": Setting(
        None,
        f"the {FSRS_WEIGHTS} FSRS-6 parameters separated by commas (as `quizzer optimize` "
        "saves them and Anki shows them), or 'default'",
        "FSRS-6 parameters: default, or fitted to you by `quizzer optimize`",
    ),
    "theme": Setting("dark", "dark or light", "dark or light"),
    "language": Setting("en", "en or zh", "en or zh"),
}


class SettingError(ValueError):
    """A setting name or value that cannot be used; the message says why, for the user."""

    def __init__(self, message: str, key: str = "", rule: str = "") -> None:
        super().__init__(message)
        self.key = key
        self.rule = rule


def setting_name(key: str) -> str:
    """``key`` if it names a setting; otherwise SettingError with the closest name."""
    if key in SETTINGS:
        return key
    close = difflib.get_close_matches(key, list(SETTINGS), n=1, cutoff=0.6)
    hint = f" (did you mean {close[0]!r}?)" if close else ""
    raise SettingError(f"no setting {key!r}{hint}; the settings are {', '.join(SETTINGS)}")


def _finite(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise ValueError(text)
    return value


def _steps(raw: Any) -> list[float]:
    if isinstance(raw, str):
        parts = [part for part in raw.replace(" ", "").split(",") if part]
        values = [_finite(part) for part in parts]
    elif isinstance(raw, (list, tuple)):
        values = [_number(v) for v in raw]
    else:
        raise ValueError(raw)
    if len(values) > MAX_STEPS or any(not 0 < v <= MAX_STEP_MIN for v in values):
        raise ValueError(raw)
    return values


def _number(raw: Any) -> float:
    if isinstance(raw, bool):
        raise ValueError(raw)
    if isinstance(raw, (int, float)):
        return _finite(str(float(raw)))
    if isinstance(raw, str):
        return _finite(raw.strip())
    raise ValueError(raw)


def _weights(raw: Any) -> list[float] | None:
    """FSRS-6 parameters from text or a stored list; None for the defaults. A value the
    scheduler would refuse raises SettingError naming it."""
    if raw is None or (isinstance(raw, str) and raw.strip().lower() in ("", "default")):
        return None
    if isinstance(raw, str):
        parts = raw.replace(",", " ").split()
        values = [_finite(part) for part in parts]
    elif isinstance(raw, (list, tuple)):
        values = [_number(v) for v in raw]
    else:
        raise ValueError(raw)
    from quizzer.progress.scheduling import parameter_problem

    problem = parameter_problem(tuple(values))
    if problem is not None:
        rule = SETTINGS["fsrs_parameters"].rule
        raise SettingError(f"fsrs_parameters must be {rule}: {problem}", "fsrs_parameters", rule)
    return values


def parse_setting(key: str, raw: Any) -> Any:
    """A setting's value from what was typed (or stored), checked: the number, list or word to
    store. Raises SettingError saying what the setting takes."""
    key = setting_name(key)
    rule = SETTINGS[key].rule
    shown = raw if isinstance(raw, str) else str(raw)
    refused = SettingError(f"{key} must be {rule} (got {shown!r})", key, rule)
    try:
        if key == "desired_retention":
            value = _number(raw)
            if not 0.7 <= value <= 0.99:
                raise ValueError(raw)
            return value
        if key == "new_per_day":
            number = _number(raw)
            if not number.is_integer() or not 0 <= number <= 1000:
                raise ValueError(raw)
            return int(number)
        if key in ("learning_steps_min", "relearning_steps_min"):
            return _steps(raw)
        if key == "fsrs_parameters":
            return _weights(raw)
    except SettingError:
        raise
    except (ValueError, OverflowError):
        raise refused from None
    words = {"theme": ("dark", "light"), "language": LANGUAGES}[key]
    word = raw.strip().lower() if isinstance(raw, str) else raw
    if word not in words:
        raise refused
    return word


def stored_setting(store: Any, key: str) -> Any:
    """A setting as saved in the progress DB, or its default when none is saved or the saved
    value is unusable (written by an older version that did not check it)."""
    setting = SETTINGS[key]
    value = store.setting(key, setting.default)
    try:
        return parse_setting(key, value)
    except SettingError:
        return setting.default


def stored_parameters(store: Any) -> tuple[float, ...] | None:
    """The FSRS-6 parameters the scheduler uses: the user's (fitted or pasted), or None for
    fsrs's defaults."""
    value = stored_setting(store, "fsrs_parameters")
    return None if value is None else tuple(value)


def scheduler_settings(store: Any) -> SchedulerSettings:
    """What the scheduler is built from, as saved in the progress DB (defaults otherwise)."""
    from quizzer.progress.scheduling import SchedulerSettings

    return SchedulerSettings(
        desired_retention=stored_setting(store, "desired_retention"),
        learning_steps_min=tuple(stored_setting(store, "learning_steps_min")),
        relearning_steps_min=tuple(stored_setting(store, "relearning_steps_min")),
        parameters=stored_parameters(store),
    )
