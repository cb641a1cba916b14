"""Write RAGAS samples with RAGAS's own code: the files beside this script.

Not run in CI, nor by the tests (they read the files it wrote, without ragas installed):
`ragas` cannot be installed beside aiojury's openai pin (it moves openai down to 1.x). It
was run in a throwaway virtual environment outside the repository, with exactly:

    python3 -m venv /tmp/ragasvenv
    /tmp/ragasvenv/bin/pip install ragas            # ragas 0.4.3 (Apache-2.0)
    /tmp/ragasvenv/bin/pip install "langchain-community<0.4"
    /tmp/ragasvenv/bin/python tests/data/tools/ragas/make_files.py

(`import ragas` 0.4.3 imports `langchain_community.chat_models.vertexai`, which
langchain-community 0.4 removed: 0.3.31 was installed to import it; langchain 1.5.2,
pandas 3.1.1, pyarrow 26.0.1, Python 3.11.7.)

What it writes, each by RAGAS's own writers (src/ragas/dataset_schema.py of 0.4.3):

- ``single_turn.jsonl``, ``multi_turn.jsonl``: `EvaluationDataset.to_jsonl`, one sample's
  ``model_dump(exclude_none=True)`` a line;
- ``single_turn.csv``, ``multi_turn.csv``: `EvaluationDataset.to_csv` (``csv.DictWriter``
  over the same dicts, so a list or table cell is as Python's ``str`` writes it);
- ``single_turn.parquet``, ``multi_turn.parquet``: `EvaluationDataset.to_pandas()` (a
  DataFrame of the same dicts) written by pandas' ``to_parquet`` (pyarrow).

The JSONL files are read back with RAGAS's own `from_jsonl`, which gives the samples it
wrote. (Its `from_pandas` does not read the Parquet file back: pandas gives a list column as
a numpy array, which `MultiTurnSample`'s validation refuses; nor does it read the CSV back, its
cells being text. Those files are as RAGAS writes them all the same.)
"""

from __future__ import annotations

from pathlib import Path

import pyarrow.parquet as pq
import ragas
from ragas import EvaluationDataset, MultiTurnSample, SingleTurnSample
from ragas.messages import AIMessage, HumanMessage, ToolCall, ToolMessage

HERE = Path(__file__).resolve().parent

SINGLE = [
    SingleTurnSample(
        user_input="When was the Eiffel Tower finished, and how tall is it?",
        retrieved_contexts=[
            "The Eiffel Tower was completed on 31 March 1889.",
            "The tower is 330 metres tall, including its antennas.",
        ],
        reference_contexts=["The Eiffel Tower was completed in 1889 and is 330 m tall."],
        retrieved_context_ids=["doc-eiffel-1", "doc-eiffel-2"],
        response="It was finished in March 1889 and stands 330 metres tall.",
        multi_responses=["Finished in 1889; 330 m.", "March 1889, about 330 metres."],
        reference="The Eiffel Tower was completed in 1889 and is 330 metres tall.",
        rubrics={"score1_description": "wrong year", "score5_description": "year and height"},
        persona_name="Curious tourist",
        query_style="conversational",
        query_length="short",
    ),
    SingleTurnSample(
        user_input="Who discovered penicillin?",
        retrieved_contexts=["Alexander Fleming discovered penicillin in 1928 at St Mary's."],
        reference_contexts=["Penicillin was discovered by Alexander Fleming in 1928."],
        retrieved_context_ids=["doc-fleming"],
        response="Alexander Fleming, in 1928.",
        multi_responses=["Fleming.", "Alexander Fleming discovered it in 1928."],
        reference="Alexander Fleming discovered penicillin in 1928.",
        rubrics={"score1_description": "another scientist", "score5_description": "Fleming"},
        persona_name="Student",
        query_style="formal",
        query_length="short",
    ),
]

MULTI = [
    MultiTurnSample(
        user_input=[
            HumanMessage(content="What's the weather like in New York right now?"),
            AIMessage(
                content="Let me check.",
                tool_calls=[ToolCall(name="weather_check", args={"location": "New York"})],
            ),
            ToolMessage(content="75°F, partly cloudy"),
            AIMessage(content="It is 75°F and partly cloudy in New York."),
            HumanMessage(content="In Celsius, please, and any storm warnings?"),
            AIMessage(
                content="Converting, and looking for warnings.",
                tool_calls=[
                    ToolCall(name="temperature_conversion", args={"temperature_fahrenheit": 75}),
                    ToolCall(name="alerts", args={"location": "New York", "kinds": ["storm"]}),
                ],
            ),
            ToolMessage(content="23.9°C"),
            ToolMessage(content="no alerts"),
            AIMessage(content="75°F is about 23.9°C, and there are no storm warnings."),
        ],
        reference="About 23.9°C, with no storm warnings.",
        reference_tool_calls=[
            ToolCall(name="weather_check", args={"location": "New York"}),
            ToolCall(name="temperature_conversion", args={"temperature_fahrenheit": 75}),
            ToolCall(name="alerts", args={"location": "New York", "kinds": ["storm"]}),
        ],
        rubrics={"score1_description": "no conversion", "score5_description": "both answered"},
        reference_topics=["weather"],
    ),
    MultiTurnSample(
        user_input=[
            HumanMessage(content="Book a table for 2 on Saturday at 20:00 under Greco."),
            AIMessage(
                content="",
                tool_calls=[
                    ToolCall(
                        name="check_availability",
                        args={"date": "2025-03-15", "time": "20:00", "party": 2},
                    ),
                ],
            ),
            ToolMessage(content='{"available": true, "table": 7}'),
            AIMessage(
                content="",
                tool_calls=[
                    ToolCall(
                        name="book_table",
                        args={
                            "date": "2025-03-15",
                            "time": "20:00",
                            "party": 2,
                            "name": "Greco",
                            "options": {"window": True},
                        },
                    ),
                ],
            ),
            ToolMessage(content='{"booking_id": "BK-5541"}'),
            AIMessage(content="Booked: table 7 on Saturday at 20:00, reference BK-5541."),
        ],
        reference="A table for 2 on Saturday 15 March at 20:00, reference BK-5541.",
        reference_tool_calls=[
            ToolCall(
                name="check_availability",
                args={"date": "2025-03-15", "time": "20:00", "party": 2},
            ),
            ToolCall(
                name="book_table",
                args={"date": "2025-03-15", "name": "Greco", "options": {"window": True}},
            ),
        ],
        rubrics={"score1_description": "wrong day", "score5_description": "booked as asked"},
        reference_topics=["restaurant booking"],
    ),
]


def write(name: str, samples: list[SingleTurnSample] | list[MultiTurnSample]) -> None:
    dataset = EvaluationDataset(samples=samples)
    dataset.to_jsonl(HERE / f"{name}.jsonl")
    dataset.to_csv(HERE / f"{name}.csv")
    dataset.to_pandas().to_parquet(HERE / f"{name}.parquet", index=False)
    # RAGAS reads back what it wrote: the same samples.
    assert EvaluationDataset.from_jsonl(HERE / f"{name}.jsonl").samples == samples
    assert pq.read_table(HERE / f"{name}.parquet").num_rows == len(samples)


if __name__ == "__main__":
    write("single_turn", SINGLE)
    write("multi_turn", MULTI)
    print(f"ragas {ragas.__version__}: wrote {sorted(p.name for p in HERE.glob('*_turn.*'))}")
