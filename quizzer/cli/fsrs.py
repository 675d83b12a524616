"""`quizzer optimize` (FSRS fitted to your history) and `quizzer settings --simulate` (the
workload each desired retention costs)."""

from __future__ import annotations

import click

from quizzer.cli.common import echo_json, fail, open_progress


@click.command()
@click.option("--reset", is_flag=True, help="Go back to the default FSRS-6 parameters.")
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
def optimize(reset: bool, as_json: bool) -> None:
    """Fit the 21 FSRS-6 parameters to your own review history.

    Prints how many reviews were used and the log loss and RMSE of the parameters in use and
    of the fitted ones, on your whole history and on its newest 20% held out. The fitted
    parameters are saved only if they predict your recall better; every later review is then
    scheduled with them.
    """
    from quizzer.progress.optimizer import NotEnoughHistory, report_lines
    from quizzer.progress.optimizer import optimize as fit
    from quizzer.progress.optimizer import reset as back_to_defaults
    from quizzer.progress.settings import stored_parameters

    store = open_progress(create=False)
    if reset:
        was_default = stored_parameters(store) is None
        updated = 0 if was_default else back_to_defaults(store)
        if as_json:
            echo_json({"parameters": "default", "cards_updated": updated})
        elif was_default:
            click.echo("Already on the default FSRS-6 parameters.")
        else:
            click.echo(
                "Back to the default FSRS-6 parameters; memory states of "
                f"{updated:,} cards recomputed (due dates unchanged)."
            )
        return
    try:
        report = fit(store)
    except NotEnoughHistory as exc:
        fail(str(exc))
    if as_json:
        echo_json(report.as_dict())
        return
    click.echo("\n".join(report_lines(report)))


def show_workload(as_json: bool) -> None:
    """`quizzer settings --simulate [--json]`: the month ahead at each desired retention."""
    from quizzer.base import clock
    from quizzer.cli.common import open_bank
    from quizzer.study.workload import workload, workload_lines

    bank = open_bank()
    store = open_progress(create=False)
    result = workload(bank, store, clock.now())
    if as_json:
        echo_json(result.as_dict())
        return
    click.echo("\n".join(workload_lines(result)))
