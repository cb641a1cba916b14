"""The run directory: records written and read, the writer's lock, shards, merge, the
estimate, and the labels file.

Public:

- the labels file (``labels.jsonl``, append-only: `jury label` writes it, `jury calibrate`,
  `jury agreement` and `jury rescore` read it): `Label`, `read_labels` (every line, checked),
  `load_labels` (the labels of a run's cases), `validate_labels`, `label_fields` (the fields
  a rubric's cases can be labelled on), `with_file_labels` (cases with their labels),
  `LabelWriter` (one writer per file), `LabelQueue` (the order cases are put to a labeller),
  and `LABELS` (the file's default name);
- `run_interruptible`, which runs a run's coroutine (``jury.run(...)``) the way the `jury`
  command does, SIGINT and SIGTERM ending it at once with what is recorded kept, and
  `Interrupted`, which it raises then (its `exit_code` is the shell's: 130, 143).
"""

from ._interrupt import Interrupted, run_interruptible
from ._label_queue import LabelQueue
from ._labels import (
    LABELS,
    Label,
    LabelWriter,
    label_fields,
    load_labels,
    read_labels,
    validate_labels,
    with_file_labels,
)

__all__ = [
    "LABELS",
    "Interrupted",
    "Label",
    "LabelQueue",
    "LabelWriter",
    "label_fields",
    "load_labels",
    "read_labels",
    "run_interruptible",
    "validate_labels",
    "with_file_labels",
]

for _name in __all__:
    if isinstance(_value := globals()[_name], type) or callable(_value):
        _value.__module__ = __name__
del _name, _value
