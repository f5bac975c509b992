"""Human-readable output of `ome match` and `ome match --explain`."""

from __future__ import annotations

from ome.engine import RecallResult


def render_matches(result: RecallResult) -> str:
    """The matched cards, one line each, then the context the hook would inject."""
    if not result.matches:
        return f"No card matched ({result.abstain_reason or 'no evidence'})."
    lines = [f"{len(result.matches)} card(s) matched:"]
    for m in result.matches:
        lines.append(f"  {m.score:>3}  {m.id}  [{m.layer}] {m.title}")
    lines.append("")
    lines.append(result.context.rstrip())
    return "\n".join(lines)


def render_explain(result: RecallResult) -> str:
    """A table of every candidate: scores, evidence families, gates and the decision."""
    env = result.envelope
    lines = []
    if env is not None:
        lines.append(f"language: {env.language}   signals: {', '.join(env.fired) or '-'}")
        lines.append(
            f"intent: {', '.join(env.intent_modes) or '-'}   concepts: "
            f"{', '.join(env.concepts) or '-'}"
        )
        if env.files or env.commands:
            lines.append(
                f"files: {', '.join(env.files) or '-'}   commands: {', '.join(env.commands) or '-'}"
            )
    opts = result.options
    lines.append(
        f"threshold {opts.threshold}, limit {opts.limit}, library {result.library_size} cards,"
        f" {len(result.candidates)} candidates"
    )
    lines.append("")
    header = f"{'id':<36} {'score':>5} {'bm25f':>7} {'rrf':>7}  {'families':<28} decision"
    lines.append(header)
    lines.append("-" * len(header))
    for c in result.candidates:
        a = c.assessment
        decision = "RETURNED" if c.selected else c.rejection
        if c.selected and a.card.card.edited_since_verified:
            decision += " (edited since verified)"
        failed = [g for g in a.gates if not g.passed]
        if failed and not c.selected:
            decision += f" ({failed[0].detail})" if failed[0].detail else ""
        lines.append(
            f"{c.id[:36]:<36} {a.score:>5} {c.bm25f:>7.2f} {c.fused:>7.4f}  "
            f"{','.join(a.families)[:28]:<28} {decision}"
        )
    if not result.candidates:
        lines.append("(no card shares a term with the prompt)")
    lines.append("")
    lines.append(
        f"abstain: {result.abstain_reason}"
        if result.abstain_reason
        else f"returned: {', '.join(m.id for m in result.matches)}"
    )
    return "\n".join(lines)
