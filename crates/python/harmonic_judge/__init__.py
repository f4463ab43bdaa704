"""harmonic-judge in Python: the page's metrics for notebooks and pipelines.

The same Rust core as the page and the ``hj`` command (no second implementation), in three
steps that need no Rust knowledge::

    import harmonic_judge as hj

    data = hj.Dataset("dataset.jsonl")                 # or a .zip holding dataset and images
    planned = hj.plan(data, metric="harmonic_eval", provider="vllm", model="Qwen/Qwen2.5-VL-3B-Instruct")
    open("requests.jsonl", "w").write(planned.jsonl)   # run it on OpenAI's Batch API or vLLM's run_batch
    scored = hj.score(data, open("answers.jsonl").read(), metric="harmonic_eval", provider="vllm",
                      model="Qwen/Qwen2.5-VL-3B-Instruct")
    scored.results.overall(gamma=0.5)                  # γ re-weighting, without asking again
    scored.results.agreement()                         # the lab's τ-b, τ-c, pairwise accuracy

Results files are the lab's (``Results.to_jsonl`` writes one its *Import results* opens).
"""

from __future__ import annotations

import inspect
import json
import os
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Callable, Dict, List, Optional, Sequence, Tuple, TypedDict, TypeVar, Union

from . import _core

if TYPE_CHECKING:
    from typing_extensions import Unpack

__all__ = [
    "Dataset",
    "Results",
    "Planned",
    "Scored",
    "Agreement",
    "Options",
    "plan",
    "score",
    "read_results",
    "metrics",
    "providers",
    "GAMMA_DEFAULT",
    "PROTOCOL_DEFAULT",
]

__version__: str = _core.__version__

#: γ of the overall score when none is given: the page's default (the core's).
GAMMA_DEFAULT: float = _core.GAMMA_DEFAULT
#: How several human ratings of an item enter τ when no protocol is given (the core's).
PROTOCOL_DEFAULT: str = _core.PROTOCOL_DEFAULT


class Dataset:
    """A dataset in the lab's format, read from disk and checked as the lab checks an import.

    ``path`` is a ``.jsonl``, ``.csv`` or ``.tsv`` file (its images beside it, or in
    ``images``: a ZIP or a folder), or a ``.zip`` holding the dataset file and its images.
    Bad rows are left out and listed in :attr:`report` with their line numbers; a file that
    cannot be read at all raises :class:`ValueError` with the page's sentence.
    """

    def __init__(self, path: Union[str, os.PathLike], images: Union[str, os.PathLike, None] = None):
        self._core = _core.Dataset(os.fspath(path), None if images is None else os.fspath(images))

    @property
    def name(self) -> str:
        """The dataset file's name (inside the ZIP when it came in one)."""
        return self._core.name

    @property
    def ids(self) -> List[str]:
        """The items' ids, in file order (an item's position is its batch ``custom_id`` prefix)."""
        return self._core.ids

    @property
    def report(self) -> List[str]:
        """The lab's findings in line order: bad rows and warnings, one sentence each."""
        return self._core.report

    def __len__(self) -> int:
        return len(self._core)

    def __repr__(self) -> str:
        return f"Dataset({self.name!r}, {len(self)} items)"


@dataclass(frozen=True)
class Agreement:
    """The lab's agreement with human judgments at one γ.

    ``figures`` is the lab's *Export agreement* document: ``overall`` and ``criteria`` with
    ``tau_b``/``tau_c`` (×100, each ``{"value", "ci_low", "ci_high"}``, 95 % bootstrap intervals
    drawn as the lab draws them) and ``pairwise_accuracy``. ``lines`` words it as the lab's table.
    """

    figures: Dict[str, Any]
    lines: List[str]

    @property
    def tau_b(self) -> Optional[float]:
        """The overall score's Kendall τ-b ×100."""
        return self.figures["overall"]["tau_b"]["value"]

    @property
    def tau_c(self) -> Optional[float]:
        """The overall score's Kendall τ-c ×100."""
        return self.figures["overall"]["tau_c"]["value"]

    @property
    def pairwise_accuracy(self) -> Optional[float]:
        """Pairwise accuracy (%) over the best-of-N pairs, when there are any."""
        return self.figures["pairwise_accuracy"]["accuracy"]["value"]


class Results:
    """Items' results as the lab stores them; the numbers stay in the core until read."""

    def __init__(self, core: Any):
        self._core = core

    @staticmethod
    def read_jsonl(text: str) -> "Results":
        """A results JSONL file's text, read as the lab's *Import results* reads it (lines it
        refuses are in :attr:`problems`)."""
        return Results(_core.Results.read_jsonl(text))

    @property
    def problems(self) -> List[str]:
        """Lines of a read file that were not results, one sentence each."""
        return self._core.problems

    def __len__(self) -> int:
        return len(self._core)

    def to_dicts(self) -> List[Dict[str, Any]]:
        """Every result as a dict: ``id``, ``metric``, ``criteria`` (``name``, ``score``,
        ``sigma``, ``distribution``, ``error``, ``doubts``) or ``score``, ``error``, ``human``…
        Floats are exact (the shortest text that reads back to the same double)."""
        return json.loads(self._core.to_json())

    def to_jsonl(self, gamma: float = GAMMA_DEFAULT) -> str:
        """The lab's results JSONL (``overall`` at ``gamma`` added to each line: ``null`` for an
        incomplete item, whose line also says why in ``incomplete``)."""
        return self._core.to_jsonl(float(gamma))

    def overall(self, gamma: float = GAMMA_DEFAULT) -> List[Optional[float]]:
        """Each result's overall score at ``gamma``: HarmonicEval's criteria weighed by
        σ^(−2(1−γ)/γ) (γ = 1 the plain mean), other metrics' one score; ``None`` when none,
        and for an incomplete item (a batch's planned request for it unanswered: its dict's
        ``missing_answers`` names them), never a number from the criteria that were answered.
        ``gamma`` is within the lab's slider's range, 0.01 to 1: any other (NaN included) raises
        :class:`ValueError` with the sentence ``hj --gamma`` says."""
        return self._core.overall(float(gamma))

    def agreement(
        self, gamma: float = GAMMA_DEFAULT, protocol: str = PROTOCOL_DEFAULT, keep_partial: bool = False
    ) -> Optional[Agreement]:
        """The lab's agreement figures, or ``None`` when no result carries a human judgment.

        ``protocol``: several ratings per item as ``"repeated"`` (each paired with the score,
        CLIPScore's; the default) or ``"averaged"`` (G-VEval's); any other raises
        :class:`ValueError` with a sentence. Items scored on fewer than all their criteria are
        left out unless ``keep_partial``, as in the lab. ``gamma`` as in :meth:`overall`.
        """
        got = self._core.agreement(float(gamma), protocol, keep_partial)
        if got is None:
            return None
        figures, lines = got
        return Agreement(json.loads(figures), lines)

    def __repr__(self) -> str:
        return f"Results({len(self)} items)"


@dataclass(frozen=True)
class Planned:
    """A planned batch: ``jsonl`` (OpenAI Batch API lines, ``custom_id`` ``"<item>:<slot>"``;
    vLLM's ``run_batch`` reads it too), how many ``requests``, and the items that could not be
    planned as ``(id, reason)``."""

    jsonl: str
    requests: int
    broken: List[Tuple[str, str]] = field(default_factory=list)

    def lines(self) -> List[Dict[str, Any]]:
        """The requests as dicts."""
        return [json.loads(line) for line in self.jsonl.splitlines() if line.strip()]


@dataclass(frozen=True)
class Scored:
    """Answers read against the plan into ``results``; ``unanswered`` item ids (no answer at
    all); ``incomplete`` item ids (some planned request unanswered: in ``results`` but never
    complete, nor scored as if they were); ``notes``, one sentence each (unreadable lines,
    answers to no planned request, second answers to one request, incomplete items); and
    ``summary``, the counts as ``hj score`` and the lab say them."""

    results: Results
    unanswered: List[str]
    incomplete: List[str]
    notes: List[str]
    summary: str

    @property
    def stray(self) -> List[str]:
        """The sentences (``notes``), under their former name."""
        return self.notes


class Options(TypedDict, total=False):
    """The options :func:`plan` and :func:`score` take, as keywords: the page's *Judge* and
    metric settings. Give both the same. Their defaults are the binding's (``_core.OPTIONS``).

    ``metric``: one of :func:`metrics` (``None``: the first, HarmonicEval). ``provider``: one of
    :func:`providers`, whose defaults (base URL, model, output budget) apply as on the page;
    ``model`` and ``base_url`` override them, ``max_tokens`` the metric's output budget there.
    ``image_detail``: OpenAI's ``"auto"``, ``"low"`` or ``"high"``. ``extended``: every
    extension of ours that can be switched on; ``extensions``: those named; ``criteria``:
    HarmonicEval's criteria judged (all when empty). ``boxes_drawn``: whether the images
    already show the REG boxes (then they are sent scaled, without drawing again; by default
    each REG item's box is drawn in as the page draws it).
    """

    metric: Optional[str]
    provider: str
    model: Optional[str]
    base_url: Optional[str]
    max_tokens: Optional[int]
    image_detail: str
    extended: bool
    extensions: Sequence[str]
    criteria: Sequence[str]
    boxes_drawn: bool


_F = TypeVar("_F", bound=Callable[..., Any])


def _takes_options(f: _F) -> _F:
    """Shows ``f``'s ``**options`` as the keyword-only parameters they are (for ``help`` and
    ``inspect``): :class:`Options`' types with the binding's defaults."""
    types = {name: getattr(t, "__forward_arg__", t) for name, t in Options.__annotations__.items()}
    sig = inspect.signature(f)
    params = [p for p in sig.parameters.values() if p.kind is not inspect.Parameter.VAR_KEYWORD]
    params += [
        inspect.Parameter(name, inspect.Parameter.KEYWORD_ONLY, default=default, annotation=types[name])
        for name, default in _core.OPTIONS
    ]
    f.__signature__ = sig.replace(parameters=params)  # type: ignore[attr-defined]
    return f


@_takes_options
def plan(dataset: Dataset, **options: Unpack[Options]) -> Planned:
    """The dataset's requests, as the lab's Batch-API run makes them, with the page's settings
    (:class:`Options`). Images are prepared as the page prepares them: scaled so the longest
    side is at most 1,024 px, sent as JPEG at quality 90, a REG item's box drawn in red. Raises :class:`ValueError` with a sentence for a setting that cannot be used, and
    :class:`TypeError` for an option there is not.
    """
    jsonl, n, broken = _core.plan(dataset._core, **options)
    return Planned(jsonl, n, [tuple(b) for b in broken])


@_takes_options
def score(dataset: Dataset, answers: str, **options: Unpack[Options]) -> Scored:
    """Reads a batch's answers (the text of OpenAI's or vLLM's output and error files, one
    answer per line) into the items' results, as the lab reads a finished batch. Give the same
    options (:class:`Options`) as :func:`plan`."""
    core, unanswered, incomplete, notes, summary = _core.score(dataset._core, answers, **options)
    return Scored(Results(core), unanswered, incomplete, notes, summary)


def read_results(path: Union[str, os.PathLike]) -> Results:
    """A results JSONL file (the lab's export, or ``hj run``'s), read as the lab reads it: a line
    at a time (each at most 64 MB), and only a regular file; a folder, a pipe or a device (or a
    file that is not there) raises :class:`ValueError` with ``hj``'s sentence."""
    return Results(_core.Results.read_file(os.fspath(path)))


def metrics() -> List[str]:
    """The metrics' ids, the default first."""
    return _core.metrics()


def providers() -> List[str]:
    """The providers' ids (the page's presets)."""
    return _core.providers()
