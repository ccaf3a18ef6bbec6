"""Configuration: [tool.ralph-verify] is validated, CLI beats config beats defaults."""

from __future__ import annotations

from ralph_verify.testing import Ralph


def test_until_from_pyproject(ralph: Ralph) -> None:
    ralph.makefile("a.txt", "x")
    ralph.makepyproject("""
        [tool.ralph-verify]
        until = ["files:a.txt", '!files:"b.txt"']
    """)
    result = ralph.run("check", "--json")
    assert result.ret == 0, result
    assert [c["spec"] for c in result.json()["checks"]] == ["files:a.txt", '!files:"b.txt"']


def test_until_as_a_string_in_pyproject(ralph: Ralph) -> None:
    ralph.makefile("a.txt", "x")
    ralph.makepyproject('[tool.ralph-verify]\nuntil = "files:a.txt,!files:b.txt"\n')
    assert ralph.run("check").ret == 0


def test_command_line_beats_config(ralph: Ralph) -> None:
    ralph.makepyproject('[tool.ralph-verify]\nuntil = ["files:missing.txt"]\n')
    ralph.makefile("a.txt", "x")
    result = ralph.run("check", "--until", "files:a.txt", "--json")
    assert result.ret == 0
    assert [c["spec"] for c in result.json()["checks"]] == ["files:a.txt"]


def test_unknown_key_names_key_file_and_a_close_match(ralph: Ralph) -> None:
    ralph.makepyproject('[tool.ralph-verify]\nuntill = ["tests"]\n')
    result = ralph.run("check")
    assert result.ret == 2
    (line,) = result.err.splitlines()
    assert "pyproject.toml: [tool.ralph-verify]: unknown key 'untill'" in line
    assert "did you mean 'until'?" in line
    assert "Traceback" not in result.err


def test_wrong_type_names_the_key(ralph: Ralph) -> None:
    ralph.makepyproject('[tool.ralph-verify]\nuntil = ["files:x"]\nfeedback-budget = "big"\n')
    result = ralph.run("check")
    assert result.ret == 2
    assert "[tool.ralph-verify] feedback-budget: input should be a valid integer" in result.err
    assert "(got 'big')" in result.err


def test_unknown_check_table(ralph: Ralph) -> None:
    ralph.makepyproject('[tool.ralph-verify.checks.fils]\ntimeout = 3\n')
    result = ralph.run("check", "--until", "files:x")
    assert result.ret == 2
    assert "[tool.ralph-verify.checks.fils]: unknown check 'fils' (did you mean 'files'?)" \
        in result.err


def test_unknown_key_in_a_check_table(ralph: Ralph) -> None:
    ralph.makepyproject('[tool.ralph-verify.checks.files]\ntimout = 3\n')
    result = ralph.run("check", "--until", "files:x")
    assert result.ret == 2
    assert "[tool.ralph-verify.checks.files]: unknown key 'timout' (did you mean 'timeout'?)" \
        in result.err


def test_invalid_toml(ralph: Ralph) -> None:
    ralph.makefile("pyproject.toml", "[tool.ralph-verify\nuntil = 1\n")
    result = ralph.run("check", "--until", "files:x")
    assert result.ret == 2
    assert "pyproject.toml: not valid TOML" in result.err
    assert "(at line 1, column 19)" in result.err  # where, in the TOML reader's words
    assert "Traceback" not in result.err


def test_settings_are_read_with_the_types_they_declare(ralph: Ralph) -> None:
    # One validation path (pydantic): an integer for a float, a key or its snake_case name,
    # a duration string; what a setting cannot take is an error naming it.
    from ralph_verify.startup import get_config

    ralph.makepyproject('[tool.ralph-verify]\nuntil = "files:a.txt"\ntimeout = 90\n'
                        'max_iterations = 3\ncache = false\nnotify = ["a", "b"]\n'
                        'max-time = "1h30m"\n')
    config = get_config(["check", "--root", str(ralph.path)])
    assert (config.get("timeout"), type(config.get("timeout"))) == (90.0, float)
    assert (config.get("max_iterations"), config.get("cache")) == (3, False)
    assert config.get("notify") == ["a", "b"]
    assert config.get("max_time") == "1h30m"
    ralph.makepyproject('[tool.ralph-verify]\nmax-iterations = 0\n')
    result = ralph.run("check", "--until", "files:x")
    assert result.ret == 2
    assert "[tool.ralph-verify] max-iterations: input should be greater than or equal to 1" \
        in result.err, result.err


def test_bad_spec_in_config_names_the_list_item(ralph: Ralph) -> None:
    ralph.makepyproject('[tool.ralph-verify]\nuntil = ["files:a", "coverage=>80"]\n')
    result = ralph.run("check")
    assert result.ret == 2
    result.stderr.fnmatch_lines([
        "ERROR: bad check spec in pyproject.toml [[]tool.ralph-verify[]] until[[]1[]]: *",
        "  coverage=>80",
        "          ^",
    ])


def test_no_checks_anywhere(ralph: Ralph) -> None:
    """``check`` checks what the project has, and says so; ``run`` asks to be told."""
    ralph.makepyfile(app="import os\n", test_app="def test_ok():\n    assert True\n")
    ralph.makefile("mypy.ini", "[mypy]\n")
    result = ralph.run("check")
    assert result.ret == 1, result
    result.stdout.fnmatch_lines([
        "no --until and no until in [[]tool.ralph-verify[]] of pyproject.toml: checking what "
        "'ralph-verify init' finds here: tests,lint,types",
        "ralph-verify check · * · 3 checks"])
    result.stdout.fnmatch_lines_random(["PASSED  tests *", "FAILED  lint *1 error*",
                                        "PASSED  types *"])
    run = ralph.run("run", "--agent", "cmd:true", "x")
    assert run.ret == 2
    assert "no checks to run: pass --until" in run.err


def test_root_is_found_from_a_subdirectory(ralph: Ralph) -> None:
    ralph.makefile("a.txt", "x")
    ralph.makepyproject('[tool.ralph-verify]\nuntil = ["files:a.txt"]\n')
    sub = ralph.path / "src" / "deep"
    sub.mkdir(parents=True)
    inner = Ralph(sub)
    result = inner.run("check", "--json")
    assert result.ret == 0
    assert result.json()["root"] == str(ralph.path)


def test_missing_root(ralph: Ralph) -> None:
    result = ralph.run("check", "--root", "nowhere", "--until", "files:x")
    assert result.ret == 2
    assert "--root nowhere: no such directory" in result.err


def test_check_options_of_either_kind_are_read_copied_and_dumped_alike() -> None:
    """A built-in's dataclass and a third-party plugin's pydantic model answer the same
    helpers: the Stop hook's clamped timeout, the cache key, ``ralph-verify checks``."""
    from ralph_verify import CheckOptions
    from ralph_verify.config.parser import option_help, options_data, replace_options
    from ralph_verify.plugins.ruff import RuffOptions

    class WordOptions(CheckOptions):
        words: tuple[str, ...] = ()

    for options in (RuffOptions(timeout=60), WordOptions(timeout=60)):
        shorter = replace_options(options, timeout=5.0)
        assert (type(shorter), shorter.timeout, options.timeout) == (type(options), 5.0, 60)
        assert options_data(shorter)["timeout"] == 5.0
    assert list(option_help(RuffOptions)) == ["timeout", "args", "command"]
    assert list(option_help(WordOptions)) == ["timeout", "words"]
