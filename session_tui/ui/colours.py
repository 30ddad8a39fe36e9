"""The colours session text is drawn in, chosen for contrast: each passes
WCAG AA (4.5:1 for text, 3:1 for the tree's guide lines) on the default dark
and light themes' backgrounds ($surface for the lists, $panel for the status
line), measured by tests/ui/test_contrast.py. Other themes get the dark or
the light set by their ``dark`` flag. CSS reads them as ``$st-<name>``."""

from __future__ import annotations

#: name: (on a dark theme, on a light theme)
READABLE = {
    "user": ("#6CB4F0", "#003A66"),
    "assistant": ("#C9A8FF", "#5A2A8C"),
    "tool": ("#B4B4B4", "#3D3D3D"),
    "system": ("#A8A8A8", "#454545"),
    "call": ("#FEA62B", "#6E4200"),
    "problem": ("#FF7A8F", "#8E1B30"),
    "running": ("#5FD38A", "#1C5E31"),
    "summary": ("#FFC473", "#6E4200"),
    "dim": ("#9A9A9A", "#4A4A4A"),
    "lineno": ("#8E8E8E", "#505050"),
    "guide": ("#7A7A7A", "#6A6A6A"),
}
DECORATIVE = {"guide"}  # lines, not text: 3:1


def variables(dark: bool) -> dict[str, str]:
    return {f"st-{name}": pair[0 if dark else 1] for name, pair in READABLE.items()}


def contrast(a: tuple[int, int, int], b: tuple[int, int, int]) -> float:
    """The WCAG contrast ratio of two RGB colours."""

    def luminance(rgb: tuple[int, int, int]) -> float:
        def channel(v: int) -> float:
            c = v / 255
            return c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4

        r, g, b = (channel(v) for v in rgb)
        return 0.2126 * r + 0.7152 * g + 0.0722 * b

    high, low = sorted((luminance(a), luminance(b)), reverse=True)
    return (high + 0.05) / (low + 0.05)
