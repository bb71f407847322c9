"""The ``mlflow`` tracker: a run in MLflow, through its REST API (no ``mlflow`` package needed).

A parent MLflow run per evalcore run, a child run per contender with its model and settings as params and
every leaderboard figure (with its interval ends) as metrics, and the run file as the parent's artifact.
``MLFLOW_TRACKING_URI`` says which server; ``MLFLOW_EXPERIMENT_NAME`` which experiment (default: the suite's
name). Every MLflow run is tagged with the evalcore run id (and contender id), and looked up by it before one
is created: sending a run again updates it, never duplicates it.
"""

from __future__ import annotations

import base64
import math
import os
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

from evalcore.core.errors import ConfigError
from evalcore.core.records import Contender
from evalcore.core.runids import run_file_stem
from evalcore.trackers._tracker import RunEnded, RunStarted, Tracker, Unsent

# httpx is imported where a call is made: the runner (and `evalcore verify`) import every tracker.
if TYPE_CHECKING:
    import httpx

RUN_TAG = "evalcore.run_id"
CONTENDER_TAG = "evalcore.contender"
#: ``run`` on the parent MLflow run, ``contender`` on a child.
KIND_TAG = "evalcore.kind"
PARENT_TAG = "mlflow.parentRunId"
#: MLflow's own variables for its HTTP client, read here too.
TIMEOUT_ENV, RETRIES_ENV = "MLFLOW_HTTP_REQUEST_TIMEOUT", "MLFLOW_HTTP_REQUEST_MAX_RETRIES"
STATUSES = {"completed": "FINISHED", "failed": "FAILED", "interrupted": "KILLED", "running": "RUNNING"}
#: log-batch's limits per request.
BATCH_METRICS, BATCH_PARAMS = 1000, 100


class MlflowTracker(Tracker):
    """Sends a run to an MLflow tracking server.

    Args:
        tracking_uri: the server (default ``$MLFLOW_TRACKING_URI``), ``http://`` or ``https://``.
        experiment: the experiment's name (default ``$MLFLOW_EXPERIMENT_NAME``, else the suite's name).
        timeout_s: seconds per request (default ``$MLFLOW_HTTP_REQUEST_TIMEOUT``, else 10).
        retries: attempts after the first on a refused connection, a timeout or a 5xx
            (default ``$MLFLOW_HTTP_REQUEST_MAX_RETRIES``, else 3).

    Raises:
        ConfigError: no tracking URI, or one that is not an HTTP server.
    """

    name: ClassVar[str] = "mlflow"

    def __init__(
        self,
        tracking_uri: str | None = None,
        experiment: str | None = None,
        timeout_s: float | None = None,
        retries: int | None = None,
    ):
        uri = (tracking_uri or os.environ.get("MLFLOW_TRACKING_URI") or "").rstrip("/")
        if not uri.startswith(("http://", "https://")):
            raise ConfigError(
                f"mlflow tracker: MLFLOW_TRACKING_URI is {uri or 'not set'!r}; set it to your tracking server, "
                "e.g. export MLFLOW_TRACKING_URI=http://127.0.0.1:5000"
            )
        self.uri = uri
        self.experiment = experiment or os.environ.get("MLFLOW_EXPERIMENT_NAME")
        self.timeout_s = timeout_s if timeout_s is not None else float(os.environ.get(TIMEOUT_ENV, 10))
        self.retries = retries if retries is not None else int(os.environ.get(RETRIES_ENV, 3))
        self.tally = Unsent("runs")
        self.artifact_problem = ""
        self.parent: dict[str, Any] | None = None
        self._client: httpx.Client | None = None

    def run_started(self, run: RunStarted) -> None:
        """Create (or find) the parent MLflow run, so the run shows as running while it runs."""
        import httpx

        try:
            self.parent = self._parent(run.info.id, run.info.suite, _ms(run.info.created_at))
        except (httpx.HTTPError, MlflowError):
            self.parent = None  # tried again, with everything else, when the run ends

    def run_ended(self, run: RunEnded) -> None:
        """Send the whole run: parent and child runs, params, metrics, the run file, their final status."""
        import httpx

        try:
            self.send(run)
        except (httpx.HTTPError, MlflowError) as exc:
            self.tally.add(1 + len(run.contenders), _reason(exc))
        finally:
            if self._client is not None:
                self._client.close()

    def unsent(self) -> str | None:
        """``mlflow: 3 runs not sent: connection refused``: the parent and children that did not arrive."""
        lines = [line for line in (self.tally.line(), self.artifact_problem) if line]
        return "; ".join(lines) or None

    def send(self, run: RunEnded) -> str:
        """Create or update the MLflow runs of ``run``; returns the parent MLflow run's id.

        Raises:
            httpx.HTTPError: the server could not be reached after the retries.
            MlflowError: the server refused a request.
        """
        info = run.info
        parent = self.parent or self._parent(info.id, info.suite, _ms(info.created_at))
        parent_id = parent["info"]["run_id"]
        status = STATUSES.get(info.status, "FINISHED")
        end = _ms(info.finished_at) if info.finished_at else int(time.time() * 1000)
        table = run.leaderboard()
        rows = {str(r["contender"]): r for r in table.to_dict("records")} if "contender" in table else {}
        params = [{"key": "suite", "value": info.suite}] + [
            {"key": f"weight.{k}", "value": str(v)} for k, v in info.weights.items()
        ]
        self._batch(parent_id, params=params, tags=[{"key": "evalcore.status", "value": info.status}])
        for contender in run.contenders:
            child = self._child(info.id, parent, contender)
            child_id = child["info"]["run_id"]
            self._batch(child_id, params=_params(contender), metrics=_metrics(rows.get(contender.id), end))
            self._post("runs/update", {"run_id": child_id, "status": status, "end_time": end})
        try:
            self._artifact(parent, run)
        except MlflowError as exc:  # the runs are there: only the file is missing, said on its own
            self.artifact_problem = exc.message
        self._post("runs/update", {"run_id": parent_id, "status": status, "end_time": end})
        return parent_id

    def _parent(self, run_id: str, suite: str, start_ms: int) -> dict[str, Any]:
        experiment_id = self._experiment(self.experiment or suite)
        tags = {RUN_TAG: run_id, KIND_TAG: "run", "mlflow.source.name": "evalcore"}
        return self._find_or_create(experiment_id, run_id, start_ms, tags, (RUN_TAG, KIND_TAG))

    def _child(self, run_id: str, parent: dict[str, Any], contender: Contender) -> dict[str, Any]:
        experiment_id = parent["info"]["experiment_id"]
        tags = {
            RUN_TAG: run_id,
            KIND_TAG: "contender",
            CONTENDER_TAG: contender.id,
            PARENT_TAG: parent["info"]["run_id"],
        }
        start_ms = parent["info"].get("start_time", int(time.time() * 1000))
        return self._find_or_create(experiment_id, contender.id, start_ms, tags, (RUN_TAG, CONTENDER_TAG))

    def _find_or_create(
        self, experiment_id: str, name: str, start_ms: int, tags: dict[str, str], keys: tuple[str, str]
    ) -> dict[str, Any]:
        """The run of the experiment whose tags ``keys`` have their values in ``tags``, created with all of
        ``tags`` when there is none yet: a second export of the same evalcore run updates, never duplicates."""
        found = self._find(experiment_id, " and ".join(f"tags.`{key}` = '{_quoted(tags[key])}'" for key in keys))
        if found is not None:
            return found
        body = {
            "experiment_id": experiment_id,
            "run_name": name,
            "start_time": start_ms,
            "tags": [{"key": key, "value": value} for key, value in tags.items()],
        }
        return self._post("runs/create", body)["run"]

    def _experiment(self, name: str) -> str:
        try:
            found = self._get("experiments/get-by-name", {"experiment_name": name})
            return str(found["experiment"]["experiment_id"])
        except MlflowError as exc:
            if exc.code != "RESOURCE_DOES_NOT_EXIST":
                raise
        return str(self._post("experiments/create", {"name": name})["experiment_id"])

    def _find(self, experiment_id: str, filter_string: str) -> dict[str, Any] | None:
        body = {"experiment_ids": [experiment_id], "filter": filter_string, "max_results": 1}
        runs = self._post("runs/search", body).get("runs", [])
        return runs[0] if runs else None

    def _batch(
        self,
        run_id: str,
        *,
        params: Sequence[dict[str, Any]] = (),
        metrics: Sequence[dict[str, Any]] = (),
        tags: Sequence[dict[str, Any]] = (),
    ) -> None:
        params, metrics, tags = list(params), list(metrics), list(tags)
        while params or metrics or tags:
            body = {"run_id": run_id, "params": params[:BATCH_PARAMS], "metrics": metrics[:BATCH_METRICS], "tags": tags}
            self._post("runs/log-batch", body)
            params, metrics, tags = params[BATCH_PARAMS:], metrics[BATCH_METRICS:], []

    def _artifact(self, parent: dict[str, Any], run: RunEnded) -> None:
        """The run file, as the parent run's artifact (a server that proxies artifacts: ``mlflow server``'s default)."""
        uri = str(parent["info"].get("artifact_uri", ""))
        if not uri.startswith("mlflow-artifacts:"):
            raise MlflowError(
                "NOT_PROXIED",
                f"the run file was not sent: the server keeps artifacts at {uri!r}, not behind its API "
                "(start it with --serve-artifacts, or send the file with evalcore export RUN -o FILE)",
            )
        path = uri.removeprefix("mlflow-artifacts:").lstrip("/")
        with tempfile.TemporaryDirectory() as folder:
            file = Path(folder) / f"{run_file_stem(run.info.id)}.json.gz"
            run.write_run_file(file)
            data = file.read_bytes()
        self._request("PUT", f"{self.uri}/api/2.0/mlflow-artifacts/artifacts/{path}/{file.name}", content=data)

    def _get(self, endpoint: str, params: dict[str, Any]) -> dict[str, Any]:
        return self._request("GET", f"{self.uri}/api/2.0/mlflow/{endpoint}", params=params)

    def _post(self, endpoint: str, body: dict[str, Any]) -> dict[str, Any]:
        return self._request("POST", f"{self.uri}/api/2.0/mlflow/{endpoint}", json=body)

    def _request(self, method: str, url: str, **kwargs: Any) -> dict[str, Any]:
        """One call to the server, retried with backoff on a refused connection, a timeout or a 5xx."""
        import httpx

        if self._client is None:
            self._client = httpx.Client(timeout=self.timeout_s, headers=_auth_headers())
        for attempt in range(self.retries + 1):
            last = attempt == self.retries
            try:
                response = self._client.request(method, url, **kwargs)
            except httpx.TransportError:
                if last:
                    raise
            else:
                if response.status_code < 500 or last:
                    return _answer(response)
            time.sleep(min(0.25 * 2**attempt, 4.0))
        raise AssertionError("unreachable")  # the last attempt returns or raises


class MlflowError(Exception):
    """The tracking server refused a request (its ``error_code`` and message)."""

    def __init__(self, code: str, message: str):
        super().__init__(f"{code}: {message}")
        self.code, self.message = code, message


def _answer(response: httpx.Response) -> dict[str, Any]:
    if response.is_success:
        return response.json() if response.content else {}
    try:
        error = response.json()
        raise MlflowError(str(error.get("error_code", response.status_code)), str(error.get("message", "")))
    except ValueError:
        raise MlflowError(f"HTTP {response.status_code}", response.text[:200]) from None


def _auth_headers() -> dict[str, str]:
    """MLflow's own variables: a bearer token, or a user name and password."""
    token = os.environ.get("MLFLOW_TRACKING_TOKEN")
    if token:
        return {"Authorization": f"Bearer {token}"}
    user, password = os.environ.get("MLFLOW_TRACKING_USERNAME"), os.environ.get("MLFLOW_TRACKING_PASSWORD")
    if user and password:
        return {"Authorization": "Basic " + base64.b64encode(f"{user}:{password}".encode()).decode()}
    return {}


def _quoted(value: str) -> str:
    """``value`` as the inside of a quoted string of MLflow's search filter."""
    return value.replace("'", "\\'")


def _params(contender: Contender) -> list[dict[str, str]]:
    params = [{"key": "model", "value": contender.model}, {"key": "contender", "value": contender.id}]
    return params + [{"key": k, "value": str(v)[:6000]} for k, v in sorted(contender.settings.items())]


def _metrics(row: dict[str, Any] | None, at_ms: int) -> list[dict[str, Any]]:
    """Every number of a contender's leaderboard row (``score``, ``score_lo``, ``score_hi``, ``wscore`` …)."""
    metrics = []
    for key, value in (row or {}).items():
        if isinstance(value, bool) or not isinstance(value, int | float) and not hasattr(value, "item"):
            continue
        number = float(value.item() if hasattr(value, "item") else value)
        if not math.isnan(number) and not math.isinf(number):
            metrics.append({"key": str(key), "value": number, "timestamp": at_ms, "step": 0})
    return metrics


def _reason(exc: BaseException) -> str:
    import httpx

    if isinstance(exc, httpx.ConnectError) and "refused" in str(exc).lower():
        return "connection refused"
    if isinstance(exc, httpx.TimeoutException):
        return "timed out"
    return str(exc).splitlines()[0] if str(exc) else type(exc).__name__


def _ms(timestamp: str) -> int:
    from datetime import datetime

    return int(datetime.fromisoformat(timestamp.replace("Z", "+00:00")).timestamp() * 1000)
