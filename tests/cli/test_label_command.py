"""`jury label RUN` as a labeller runs it: the address first, Host and Origin checked on
every write, values the rubric does not allow refused, votes withheld until the case is
labelled, one page per labels file, and the labels read by calibrate and agreement."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

import pytest
from labelling import label_server, recorded_run

from jury.cli import main
from jury.runs._labels import case_hash
from jury.runs._records import read_cases

FULL = {"pass": False, "relevance": 4, "correctness": 1, "faithfulness": 2}
FULL |= {"helpfulness": 1, "hallucinationFree": 3}


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return recorded_run(tmp_path_factory.mktemp("label"))


def _request(
    url: str, body: Any = None, headers: dict[str, str] | None = None
) -> tuple[int, dict[str, str], Any]:
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(url, data=data, headers=headers or {})
    try:
        with urllib.request.urlopen(request, timeout=30) as reply:
            raw = reply.read()
            status, got = reply.status, dict(reply.headers)
    except urllib.error.HTTPError as error:
        raw, status, got = error.read(), error.code, dict(error.headers)
    kind = got.get("Content-Type", "")
    return status, got, json.loads(raw) if kind.startswith("application/json") else raw.decode()


def _post(base: str, path: str, body: Any, **headers: str) -> tuple[int, Any]:
    sent = {"Content-Type": "application/json", "Origin": base.rstrip("/"), **headers}
    status, _, data = _request(base + path, body, {k: v for k, v in sent.items() if v})
    return status, data


def test_the_page_is_served_on_loopback_with_the_reports_policy_and_no_outside_asset(
    run: Path, tmp_path: Path
) -> None:
    labels = tmp_path / "labels.jsonl"
    with label_server(run, "--labeller", "ana", "--labels", str(labels)) as server:
        assert server.url.startswith("http://127.0.0.1:")
        assert server.url.endswith("/")
        assert "labelling 10 cases" in server.banner
        assert "ana" in server.banner
        status, headers, page = _request(server.url)
        assert status == 200
        policy = headers["Content-Security-Policy"]
        assert policy.startswith("default-src 'none'; script-src 'sha256-")
        assert "connect-src 'self'" in policy
        assert "frame-ancestors 'none'" in policy
        assert "http://" not in page
        assert "https://" not in page
        assert "style=" not in page


def test_writes_need_this_servers_host_and_origin_and_a_json_body(
    run: Path, tmp_path: Path
) -> None:
    labels = tmp_path / "labels.jsonl"
    body = {"case_id": "c0", "labels": FULL, "note": None}
    with label_server(run, "--labeller", "ana", "--labels", str(labels)) as server:
        status, _, reply = _request(server.url + "api/state", headers={"Host": "evil.example"})
        assert status == 403
        assert "Host 'evil.example'" in reply["error"]
        assert _post(server.url, "api/label", body, Origin="")[0] == 403
        status, reply = _post(server.url, "api/label", body, Origin="http://evil.example")
        assert status == 403
        assert "Origin 'http://evil.example'" in reply["error"]
        status, _ = _post(server.url, "api/label", body, **{"Content-Type": "text/plain"})
        assert status == 415
        assert labels.read_text() == ""
        assert _post(server.url, "api/label", body)[0] == 200
    assert len(labels.read_text().splitlines()) == 1


def test_a_value_the_rubric_does_not_allow_is_refused_and_nothing_written(
    run: Path, tmp_path: Path
) -> None:
    labels = tmp_path / "labels.jsonl"
    with label_server(run, "--labeller", "ana", "--labels", str(labels)) as server:
        status, reply = _post(
            server.url, "api/label", {"case_id": "c0", "labels": {**FULL, "relevance": 6}}
        )
        assert status == 422
        assert reply["error"] == "labels.relevance: 6 is not on the rubric's scale (1, 2, 3, 4, 5)"
        status, reply = _post(server.url, "api/label", {"case_id": "c0", "labels": {}})
        assert status == 422
        assert "missing" in reply["error"]
    assert labels.read_text() == ""


def test_the_votes_are_sent_only_once_the_case_is_labelled(run: Path, tmp_path: Path) -> None:
    labels = tmp_path / "labels.jsonl"
    with label_server(run, "--labeller", "ana", "--labels", str(labels)) as server:
        _, _, state = _request(server.url + "api/state")
        first = state["next"]
        _, _, before = _request(server.url + f"api/case/{first}")
        assert before["label"] is None
        assert "jury" not in before
        assert "offline/" not in json.dumps(before)  # no juror name, no reason
        assert before["case"]["tool_calls"] == [
            {
                "name": "getOrder",
                "arguments": json.dumps({"id": f"ORD-10{first[1:]}"}),
                "result": None,
            }
        ]
        status, after = _post(server.url, "api/label", {"case_id": first, "labels": FULL})
        assert status == 200
        assert {vote["juror"] for vote in after["jury"]["votes"]} == {
            "offline/evidence",
            "offline/facts",
            "offline/reference",
        }
        assert after["progress"]["labelled"] == 1
        assert after["next"] != first


def test_split_cases_are_offered_first(run: Path, tmp_path: Path) -> None:
    labels = tmp_path / "labels.jsonl"
    with label_server(run, "--labeller", "ana", "--labels", str(labels)) as server:
        _, _, state = _request(server.url + "api/state")
    # The odd cases answer yes, where the offline jurors split 2 to 1.
    assert int(state["next"][1:]) % 2 == 1


def test_two_pages_on_one_labels_file_are_refused(run: Path, tmp_path: Path) -> None:
    labels = tmp_path / "labels.jsonl"
    with label_server(run, "--labeller", "ana", "--labels", str(labels)):
        second = subprocess.run(
            [sys.executable, "-m", "jury", "label", str(run), "--labels", str(labels)],
            check=False,
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            timeout=60,
            env={**os.environ, "USER": "bo"},  # the labeller defaults to $USER
        )
    assert second.returncode == 2
    assert "another `jury label` is writing this labels file" in second.stderr
    assert "Traceback" not in second.stderr
    assert second.stdout == ""


def _line(case_id: str, who: str, **labels: Any) -> str:
    return json.dumps({"case_id": case_id, "labels": labels, "labeller": who, "time": "t"})


def test_a_bad_labels_file_is_refused_with_its_line_by_every_command(
    run: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    labels = tmp_path / "labels.jsonl"
    labels.write_text(
        _line("c0", "ana", **{"pass": True})
        + "\n"
        + _line("zz", "ana", **{"pass": True})
        + "\n"
        + _line("c1", "ana", correctness=0)
        + "\n",
        encoding="utf-8",
    )
    for argv in (
        ["agreement", str(run), "--labels", str(labels)],
        ["calibrate", str(run / "cases.jsonl"), "--labels", str(labels)],
        ["label", str(run), "--labels", str(labels), "--labeller", "ana"],
    ):
        assert main(argv) == 2, argv
        err = capsys.readouterr().err
        assert f"{labels}:2: case_id: no case with the ID 'zz'" in err
        assert f"{labels}:3: labels.correctness: 0 is not on the rubric's scale" in err
        assert "Traceback" not in err


def test_calibrate_and_agreement_read_the_labels_file(
    run: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    cases = {case.id: case for case in read_cases(run)}
    labels = tmp_path / "labels.jsonl"
    lines = []
    for n in range(10):
        truth = n % 2 == 1
        for who in ("ana", "bo"):
            said = truth if who == "ana" or n not in (3, 4) else not truth
            line = json.loads(_line(f"c{n}", who, **{"pass": said}))
            line["case_hash"] = case_hash(cases[f"c{n}"])
            lines.append(json.dumps(line))
    labels.write_text("\n".join(lines) + "\n", encoding="utf-8")
    assert main(["agreement", str(run), "--labels", str(labels), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    people = data["people"]["keys"]["pass"]
    assert people["labellers"] == ["ana", "bo"]
    assert people["cases"] == 10
    # ana and bo disagree on 2 of 10 cases, each half pass: kappa (0.8 - 0.5) / 0.5 = 0.6.
    assert people["cohen_kappa"]["value"] == pytest.approx(0.6)
    assert data["verdict"]["labels"]["labelled"] == 8  # the two ties have no majority
    assert main(["calibrate", str(run / "cases.jsonl"), "--labels", str(labels)]) in (0, 1)
    out = capsys.readouterr()
    assert "Agreement with hand labels" in out.out
    assert "offline/facts · pass: accuracy" in out.out
    assert "8/8 rated" in out.out
    assert "the labellers tied on c3 · pass" in out.err


def test_a_fit_made_from_a_labels_file_is_used_by_rescore(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    big = recorded_run(tmp_path, 24)  # a fit needs 20 labelled cases
    labels = tmp_path / "labels.jsonl"
    labels.write_text(
        "".join(
            _line(case.id, "ana", **{"pass": (case.answer or "").startswith("Yes")}) + "\n"
            for case in read_cases(big)
        ),
        encoding="utf-8",
    )
    fit = tmp_path / "fit.toml"
    calibrate = ["calibrate", str(big / "cases.jsonl"), "--labels", str(labels)]
    assert main([*calibrate, "--fit", str(fit)]) == 0
    assert "fit written to" in capsys.readouterr().out
    assert "[target.pass]" in fit.read_text(encoding="utf-8")
    out = tmp_path / "rescored"
    assert main(["rescore", str(big), "--calibration", str(fit), "--out", str(out)]) in (0, 1)
    manifest = json.loads((out / "manifest.json").read_text(encoding="utf-8"))
    assert manifest["jury"]["calibration"] == str(fit)


def test_without_a_name_the_labeller_is_asked_for_not_prompted(
    run: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.delenv("USER", raising=False)
    assert main(["label", str(run)]) == 2
    assert "--labeller: give your name (USER is not set)" in capsys.readouterr().err


def test_agreement_with_one_labeller_says_why_each_statistic_is_undefined(
    run: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    labels = tmp_path / "labels.jsonl"
    labels.write_text(
        "".join(_line(f"c{n}", "ana", **{"pass": n % 2 == 1}) + "\n" for n in range(10)),
        encoding="utf-8",
    )
    assert main(["agreement", str(run), "--labels", str(labels), "--bootstrap", "0"]) == 0
    out = " ".join(capsys.readouterr().out.split())  # rich wraps long lines
    assert "Agreement between people (1: ana)" in out
    assert "pass: Cohen kappa undefined (only ana labelled: Cohen's kappa needs two" in out
    assert "pass: Fleiss kappa undefined (only ana labelled: Fleiss' kappa needs three" in out
    assert "pass: alpha undefined (only ana labelled: alpha needs a case labelled by two" in out
    assert main(["agreement", str(run), "--labels", str(labels), "--json"]) == 0
    people = json.loads(capsys.readouterr().out)["people"]["keys"]["pass"]
    for name in ("cohen_kappa", "fleiss_kappa", "alpha"):
        assert people[name]["value"] is None
        assert people[name]["reason"].startswith("only ana labelled")


def test_a_field_to_ask_that_the_rubric_lacks_is_refused_before_the_page_is_served(
    run: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["label", str(run), "--labeller", "ana", "--labels", str(tmp_path / "l.jsonl")]
    assert main([*argv, "--only", "pass,tone"]) == 2
    captured = capsys.readouterr()
    assert "--only: tone is not a label of five-metric (it has pass, relevance," in captured.err
    assert "Traceback" not in captured.err
    assert "http://" not in captured.out
