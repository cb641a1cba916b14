"""What a run gives back: the run summary, the terminal, HTML and JUnit reports, live
progress, and the run directory they are published to.

Public: the reports of a `jury.Run` (one that `jury.run` returned, or `jury.Run.open` read),
printed or written where asked::

    run = await jury.run("cases.jsonl", jury="jury.toml")
    jury.report.print_report(run)              # the terminal report
    jury.report.write_junit(run, "out/junit.xml")
"""

from ._run_reports import print_report, write_html, write_json, write_junit

__all__ = ["print_report", "write_html", "write_json", "write_junit"]

for _name in __all__:
    globals()[_name].__module__ = __name__
del _name
