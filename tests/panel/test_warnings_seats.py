"""Panel warnings on seats: several seats of one model are one family and one model, named
once, however differently they judge."""

from __future__ import annotations

from jury import Juror, Panel
from jury.panel._warnings import juror_family, juror_model, panel_warnings

MINI = "openai/gpt-5.4-mini-2026-03-17"


def seats_of_one_model() -> tuple[Juror, ...]:
    # Until strategies land, a seat is a juror with its own name over a shared model.
    return (
        Juror(model=MINI, name="gpt-5.4-mini+plain"),
        Juror(model=MINI, name="gpt-5.4-mini+metrics"),
        Juror(model="anthropic/claude-haiku-4-5-20251001"),
    )


def test_two_seats_of_one_model_get_one_family_warning_that_names_the_model() -> None:
    warnings = panel_warnings(Panel(jurors=seats_of_one_model()))
    assert warnings == [
        "jurors gpt-5.4-mini+plain, gpt-5.4-mini+metrics (seats of one model, "
        f"{MINI}) are all of the openai family: ways of judging of one model share its "
        "blind spots; a jury's strength is jurors from different families"
    ]


def test_seats_of_one_model_beside_another_model_of_the_family_are_told_apart() -> None:
    jurors = (*seats_of_one_model(), Juror(model="openai/gpt-4.1-mini-2025-04-14"))
    family = [w for w in panel_warnings(Panel(jurors=jurors)) if "family" in w]
    assert family == [
        "jurors gpt-5.4-mini+plain, gpt-5.4-mini+metrics, openai/gpt-4.1-mini-2025-04-14 "
        f"(gpt-5.4-mini+plain, gpt-5.4-mini+metrics: seats of one model, {MINI}) are all of "
        "the openai family: a jury's strength is jurors from different families"
    ]


def test_seats_of_the_family_under_test_are_warned_about_once_per_model() -> None:
    panel = Panel(jurors=seats_of_one_model(), system_under_test="openai/gpt-4.1-mini")
    warned = [w for w in panel_warnings(panel) if "system under test" in w]
    assert warned == [
        "jurors gpt-5.4-mini+plain, gpt-5.4-mini+metrics (seats of one model, "
        f"{MINI}) are of the openai family, like the system under test "
        "(openai/gpt-4.1-mini): judges tend to prefer answers like their own"
    ]


def test_an_alias_shared_by_seats_is_one_warning_naming_every_seat() -> None:
    jurors = (
        Juror(model="openai/gpt-5.4-mini", name="mini+plain"),
        Juror(model="openai/gpt-5.4-mini", name="mini+cot"),
    )
    aliases = [w for w in panel_warnings(Panel(jurors=jurors)) if "alias" in w]
    assert aliases == [
        "mini+plain, mini+cot: gpt-5.4-mini is an alias, not a dated snapshot; it can be "
        "re-pointed to another model without notice (use a dated model ID)"
    ]


def test_a_seat_knows_its_model_and_family() -> None:
    seat = Juror(model=MINI, name="gpt-5.4-mini+metrics")
    assert (juror_model(seat), juror_family(seat)) == (MINI, "openai")
    assert juror_family(seat.model_copy(update={"family": "house"})) == "house"
