import pytest

from seqlab.data.registry import DATASETS
from seqlab.models.registry import ARCHITECTURES
from seqlab.registry import Registry
from seqlab.tasks import TASK_KINDS


def test_register_get_list_and_the_unknown_name_message():
    shapes: Registry[int] = Registry("shape", check=lambda n: None if n > 0 else (_ for _ in ()).throw(ValueError("n")))
    assert shapes.register("square", 4) == 4
    shapes.register("triangle", 3)
    assert shapes.get("triangle") == 3 and shapes.names() == ["square", "triangle"] and "square" in shapes
    assert shapes.list(lambda n: n > 3) == [4]
    with pytest.raises(ValueError, match=r"Unknown shape 'circle'; valid shapes: square, triangle\."):
        shapes.get("circle")
    with pytest.raises(ValueError, match="Unknown shape 3"):
        shapes.get(3)
    with pytest.raises(ValueError):
        shapes.register("nothing", 0)  # the registry's check refuses it
    assert "nothing" not in shapes


def test_datasets_models_and_tasks_share_the_one_registry():
    for registry in (DATASETS, ARCHITECTURES, TASK_KINDS):
        assert isinstance(registry, Registry) and len(registry) > 0
    assert {"forecast", "regress", "classify", "label"} <= set(TASK_KINDS)


def test_a_registry_loads_its_plug_ins_once_on_first_read_and_again_after_a_failure():
    calls = []

    def load():
        calls.append(len(calls))
        if len(calls) == 1:
            raise ImportError("a plug-in failed to import")
        plugins.register("late", 2)

    plugins: Registry[int] = Registry("plug-in", load=load)
    plugins.register("early", 1)  # registering never loads: the plug-ins register themselves while loading
    assert calls == []
    with pytest.raises(ImportError):
        plugins.names()
    assert plugins.names() == ["early", "late"] and plugins.get("late") == 2 and len(plugins) == 2
    assert calls == [0, 1], "loaded again after the failure, then never more"
