"""apply_budget sizes items only against a budget: without maxResponseCharacters no record is
serialised just to be measured (the full-text tool's records are whole articles)."""

from medlit.core.budget import apply_budget


def test_no_budget_sizes_nothing():
    sized: list[str] = []

    def size_of(item: str) -> int:
        sized.append(item)
        return 10

    split = apply_budget(["a", "b"], None, id_of=str, size_of=size_of)
    assert split.kept == ["a", "b"] and split.deferred is None and split.used == 0
    assert sized == []


def test_a_budget_sizes_up_to_the_first_deferred_item():
    sized: list[str] = []

    def size_of(item: str) -> int:
        sized.append(item)
        return 10

    split = apply_budget(["a", "b", "c"], 15, id_of=str, size_of=size_of)
    assert split.kept == ["a"] and split.used == 10
    assert split.deferred is not None and split.deferred.ids == ["b", "c"]
    assert split.deferred.nextItemCharacters == 10
    assert sized == ["a", "b"]  # "c" is deferred without being measured
