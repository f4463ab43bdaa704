"""Type stubs of the compiled binding (python/src/lib.rs); use the package's own API."""

from typing import List, Optional, Sequence, Tuple

__version__: str

class Dataset:
    def __init__(self, path: str, images: Optional[str] = None) -> None: ...
    @property
    def name(self) -> str: ...
    @property
    def ids(self) -> List[str]: ...
    @property
    def report(self) -> List[str]: ...
    def __len__(self) -> int: ...

class Results:
    @staticmethod
    def read_jsonl(text: str) -> "Results": ...
    @staticmethod
    def read_file(path: str) -> "Results": ...
    @property
    def problems(self) -> List[str]: ...
    def __len__(self) -> int: ...
    def to_json(self) -> str: ...
    def to_jsonl(self, gamma: float = 0.75) -> str: ...
    def overall(self, gamma: float = 0.75) -> List[Optional[float]]: ...
    def agreement(
        self, gamma: float = 0.75, protocol: str = "repeated", keep_partial: bool = False
    ) -> Optional[Tuple[str, List[str]]]: ...

def plan(
    dataset: Dataset,
    metric: Optional[str] = None,
    extended: bool = False,
    extensions: Sequence[str] = ...,
    criteria: Sequence[str] = ...,
    provider: str = "openai",
    model: Optional[str] = None,
    base_url: Optional[str] = None,
    max_tokens: Optional[int] = None,
    image_detail: str = "auto",
    boxes_drawn: bool = False,
) -> Tuple[str, int, List[Tuple[str, str]]]: ...
def score(
    dataset: Dataset,
    answers: str,
    metric: Optional[str] = None,
    extended: bool = False,
    extensions: Sequence[str] = ...,
    criteria: Sequence[str] = ...,
    provider: str = "openai",
    model: Optional[str] = None,
    base_url: Optional[str] = None,
    max_tokens: Optional[int] = None,
    image_detail: str = "auto",
) -> Tuple[Results, List[str], List[str], List[str], str]: ...
def metrics() -> List[str]: ...
def providers() -> List[str]: ...
