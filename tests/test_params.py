"""The one parameter table: mcl(), mcl_iterates, sweep, the command line and the README derive from it."""

import inspect
import pathlib

import networkx as nx
import pytest

import netmcl
from netmcl.cli import _parser
from netmcl.cli.tools import _SHARED
from netmcl.params import PARAMETERS, parameter_table

README = pathlib.Path(__file__).resolve().parent.parent / "README.md"
NAMES = [p.name for p in PARAMETERS]


def test_the_readme_shows_the_parameter_table():
    assert parameter_table() in README.read_text(), (
        "README.md's parameter table differs from netmcl.params.PARAMETERS; paste netmcl.params.parameter_table()"
    )


@pytest.mark.parametrize("function", [netmcl.mcl, netmcl.mcl_iterates])
def test_the_functions_take_every_parameter_with_the_tables_default(function):
    sig = inspect.signature(function)
    for prm in PARAMETERS:
        assert sig.parameters[prm.name].default == prm.default, prm.name
    assert all(f"{name} :" in netmcl.mcl.__doc__ for name in NAMES)


def test_the_command_line_has_every_flag_with_the_tables_default():
    parser = _parser()
    actions = {a.dest: a for a in parser._actions}
    for prm in PARAMETERS:
        assert prm.flag in actions[prm.name].option_strings and actions[prm.name].default == prm.default
    args = parser.parse_args(["x.abc", "-I", "1.4", "-scheme", "3", "--engine", "reference", "-te", "1"])
    assert (args.inflation, args.scheme, args.engine, args.threads) == (1.4, 3, "reference", 1)


def test_a_misspelt_parameter_is_named_with_the_nearest_one():
    with pytest.raises(netmcl.ParameterError, match="no parameter 'inflaton'; did you mean 'inflation'"):
        netmcl.mcl(nx.path_graph(3), inflaton=2)
    with pytest.raises(netmcl.ParameterError, match="sweep\\(\\) has no parameter 'pruning'"):
        netmcl.sweep(nx.path_graph(3), [2.0], pruning=3)


def test_sweep_and_the_subcommands_take_the_table_parameters():
    G = nx.karate_club_graph()
    result = netmcl.sweep(G, [2.0], engine="cpu", threads=1, scheme=3, max_iterations=50)
    assert list(result[2.0]) == list(netmcl.mcl(G, scheme=3, threads=1, attribute=None))
    assert set(_SHARED) <= set(NAMES)


@pytest.mark.parametrize("kwargs, accepted", [
    ({"resource": 0}, False), ({"resource": 1}, True),
    ({"pruning_threshold": 0.1}, True), ({"pruning_threshold": 0.11}, False),
    ({"inflation": 30}, True), ({"inflation": 30.5}, False),
])
def test_parameter_ranges_are_mcls(kwargs, accepted):
    """-resource from 1, -p up to 0.1, -I up to 30: what mcl 22-282 accepts (mcl refuses the others, or for -I
    ignores them and clusters at 2)."""
    if accepted:
        netmcl.MclParams.build(**kwargs)
    else:
        with pytest.raises(netmcl.ParameterError):
            netmcl.MclParams.build(**kwargs)
