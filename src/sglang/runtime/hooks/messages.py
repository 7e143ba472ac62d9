"""What one ``apply_hooks()`` says: its warnings and its error.

Every message names the hooks involved, the plugin and distribution (or the
module of a direct registration) each came from, what happened, and what
fixes it. Kept apart from :mod:`~sglang.runtime.hooks.apply` so that the
algorithm reads without the prose.
"""

from __future__ import annotations

from collections.abc import Sequence

from sglang.runtime.hooks.report import HookApplyError
from sglang.runtime.hooks.state import Entry
from sglang.runtime.hooks.targets import Location
from sglang.runtime.spec import RuntimeSpec

__all__ = [
    "best_effort_warning",
    "replace_conflict_warning",
    "replaced_class_member_warning",
    "required_error",
]


def _class_name(cls: type) -> str:
    return f"{cls.__module__}.{cls.__qualname__}"


def best_effort_warning(runtime: RuntimeSpec, entry: Entry) -> str:
    """The WARNING for a best-effort hook (of a plugin) that failed to apply."""
    source = entry.source
    assert source is not None
    retry = (
        " Its target does not exist yet: every later apply_hooks() tries it again "
        "(this warning is not repeated while it fails the same way)."
        if entry.retry
        else ""
    )
    return (
        f"{runtime.title}: skipping {entry.label}: {entry.reason}. Hooks of plugins "
        f"outside the selected platform's distribution are best-effort, so startup "
        f"continues without this one.{retry} Fix or upgrade {source.dist_name}, or leave "
        f"{source.name!r} out of {runtime.plugins_env} to disable the plugin."
    )


def required_error(runtime: RuntimeSpec, failures: Sequence[Entry]) -> HookApplyError:
    """The error for required hooks that failed (the first one is described)."""
    entry = failures[0]
    source = entry.source
    if source is not None:
        why = (
            f"Plugins of the selected platform's distribution {source.dist_name} are part "
            "of the platform's contract, so startup stops instead of running with the "
            "platform half-initialised"
        )
        fix = (
            f"Fix or upgrade {source.dist_name}, or set {runtime.plugins_env} to an "
            f"allowlist without {source.name!r} (an empty {runtime.plugins_env}= "
            "disables every general plugin)"
        )
    else:
        why = "Hooks registered directly, outside plugin loading, are required"
        fix = f"Fix the target path or the hook in module {entry.hook_module}"
    more = f" ({len(failures) - 1} more required hook(s) failed too)" if failures[1:] else ""
    retry = (
        " Its target does not exist yet: the next apply_hooks() tries it again."
        if entry.retry
        else ""
    )
    message = (
        f"{runtime.title} hook application failed: {entry.label} could not be "
        f"applied: {entry.reason}{more}. {why}; every patch of this apply was rolled "
        f"back.{retry} {fix}."
    )
    return HookApplyError(message, entry.info(), tuple(e.info() for e in failures))


def replace_conflict_warning(
    runtime: RuntimeSpec, location: Location, loser: Entry, winner: Entry
) -> str:
    """The WARNING for two REPLACE hooks of different origins on one target."""
    return (
        f"{runtime.title}: two REPLACE hooks on {location.qualname}: {loser.hook_name} of "
        f"{loser.origin} and {winner.hook_name} of {winner.origin}; the one registered "
        f"last ({winner.hook_name}) wins. Remove one plugin or list only one of them in "
        f"{runtime.plugins_env}."
    )


def replaced_class_member_warning(
    runtime: RuntimeSpec,
    member: Entry,
    klass: Entry,
    location: Location,
    original: type,
    *,
    own: bool,
) -> str:
    """The WARNING for a REPLACE of a member of a class that a class REPLACE installed.

    Args:
        runtime: The runtime applying the hooks.
        member: The REPLACE hook of the member (the one installed).
        klass: The REPLACE hook that installed the class.
        location: The member on the replacement class, where *member* is installed.
        original: The class that *klass* replaced.
        own: Whether the replacement class defines the member itself.
    """
    replacement = location.owner
    assert isinstance(replacement, type)
    name = location.name
    if own:
        effect = (
            f"it replaces the {name} that {_class_name(replacement)} defines itself, so that "
            f"implementation no longer runs"
        )
        fix = (
            f"To keep both, wrap {name} with an AROUND hook instead, or change the "
            "replacement class"
        )
    else:
        effect = (
            f"{_class_name(replacement)} inherits {name}, and the hook is installed on it, "
            f"not on the original"
        )
        fix = f"If one hook should decide {name}, define it in the replacement class instead"
    return (
        f"{runtime.title}: REPLACE hook {member.hook_name} of {member.origin} on target "
        f"{member.path.text!r} replaces a member of a replaced class: REPLACE hook "
        f"{klass.hook_name} of {klass.origin} installed {_class_name(replacement)} at "
        f"{klass.path.text!r}. The member hook is carried by the replacement class: "
        f"{effect}; {_class_name(original)} and objects built from it keep the original "
        f"{name}. {fix}, or list only one of the plugins in {runtime.plugins_env}."
    )
