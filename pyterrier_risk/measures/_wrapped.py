"""Measures that wrap a base measure, and the parser for their names.

:class:`WrappedMeasure` is the one design shared by URisk, TRisk, ZRisk, GeoRisk and UE: the base
measure is the first (positional) argument or ``base=`` (a measure or its name), ``.base`` is always
the base ``ir_measures`` measure, parameters are checked when the measure is built, and ``repr`` is
canonical (computed once: ir_measures compares and hashes measures through it).

:func:`parse_measure` reads every name ``ir_measures.parse_measure`` reads, trec_eval names
(``ndcg_cut_10``, ``P.10``, ``map``, as ``ir_measures.parse_trec_measure``), and the nested forms of
the wrapped measures (``URisk(nDCG@20,alpha=5)``, ``UE(nDCG@10)``). It never changes ir_measures'
own parser: the measures are registered through ``ir_measures.measures.register``, so the stock
parser reads their keyword spelling (``URisk(base='nDCG@20',alpha=5)``), and this parser the rest.
"""

from __future__ import annotations

import ast
import contextlib
import functools
import io
import math
import numbers
import re
import tokenize
from typing import Any, TypeVar

import ir_measures
from ir_measures.measures import Measure

__all__ = ["WrappedMeasure", "MeasureNameError", "parse_measure", "checked_base", "trec_measures"]

_PARSE_HELP = (
    "a measure looks like nDCG@10, P(rel=2)@10 or AP (ir_measures), ndcg_cut_10, P.10 or map "
    "(trec_eval), or Risk(base,k=v,...) such as URisk(nDCG@20,alpha=5) or UE(nDCG@10)"
)


class MeasureNameError(ValueError, NameError):
    """An unknown measure name.

    A ``ValueError`` (bad input), and also a ``NameError``, which is what ``ir_measures.parse_measure``
    raises for an unknown name.
    """


# -- base measures ---------------------------------------------------------------------------------
def _integral_cutoff(base: Measure) -> Measure:
    """``nDCG@20.0`` -> ``nDCG@20`` where the cutoff must be an int (not ``IPrec@1.0``, a float recall)."""
    at = getattr(base, "AT_PARAM", None)
    if not at:
        return base
    info = base.SUPPORTED_PARAMS.get(at)
    cutoff = base.params.get(at)
    if (
        info is not None
        and info.dtype is not None
        and isinstance(cutoff, float)
        and cutoff.is_integer()
        and not isinstance(cutoff, info.dtype)
        and isinstance(int(cutoff), info.dtype)
    ):
        return base(**{**base.params, at: int(cutoff)})
    return base


def checked_base(
    measure: Measure, what: str = "invalid measure", complete: bool = True, as_base: bool = True
) -> Measure:
    """A plain (not wrapped) measure with its parameters checked now, as one-line errors.

    ir_measures' own checks (``P@2.5``: the cutoff must be an int) run here rather than during
    evaluation; in a base, a float cutoff that is an integer becomes an int (``URisk(nDCG@20.0)`` is
    ``URisk(nDCG@20)``); a rank cutoff below 1 is refused (pytrec_eval aborts the whole process on
    ``nDCG@0``). This is the one place that checks measure parameters: :func:`parse_measure` and
    every wrapped measure's base go through it.

    Args:
        measure: the measure.
        what: how error messages begin, e.g. ``"URisk: invalid base measure"``.
        complete: also require the parameters the measure cannot do without (``P`` needs a cutoff).
            :func:`parse_measure` does not, as ``ir_measures.parse_measure``: ``UE(base='P')@10``
            gives the cutoff outside the base's name.
        as_base: the measure is a wrapped measure's base, whose canonical name has an int cutoff;
            otherwise ``nDCG@20.0`` is refused, as ir_measures refuses it when evaluating.

    Returns:
        The measure, its cutoff made an int where ir_measures wants one.

    Raises:
        ValueError: ``"<what> <measure>: <problem>"``.
    """
    unknown = sorted(set(measure.params) - set(measure.SUPPORTED_PARAMS))
    if unknown:  # before anything calls repr, which needs known parameters
        raise ValueError(f"{what} {measure.NAME}: unsupported parameter(s) {unknown}")
    if as_base:
        measure = _integral_cutoff(measure)
    cutoff = measure.params.get("cutoff")
    if (
        "cutoff" in measure.SUPPORTED_PARAMS
        and isinstance(cutoff, numbers.Real)
        and not isinstance(cutoff, bool)
        and cutoff < 1
    ):
        raise ValueError(f"{what} {measure!r}: the cutoff must be >= 1 (a rank), got {cutoff!r}")
    for name, info in measure.SUPPORTED_PARAMS.items():
        if name in measure.params and not info.validate(measure.params[name]):
            raise ValueError(f"{what} {measure!r}: invalid param {name}={measure.params[name]!r}")
        if name not in measure.params and info.required and complete:
            example = f" (e.g. {measure!r}@10)" if name == measure.AT_PARAM else ""
            raise ValueError(f"{what} {measure!r}: the parameter {name} is required{example}")
    return measure


_Wrapped = TypeVar("_Wrapped", bound="WrappedMeasure")


class WrappedMeasure(Measure):
    """A measure computed from the per-topic values of a *base* measure (URisk, TRisk, ZRisk, GeoRisk, UE).

    The base is the first positional argument or ``base=``, as a measure or its name:
    ``URisk(nDCG@20, alpha=5)``, ``URisk(base='nDCG@20', alpha=5)``, and the same as strings through
    :func:`parse_measure`. An unknown parameter is a ``TypeError`` when the measure is built.
    Subclasses define :meth:`_make_repr` (the canonical name) and may check their base further in
    :meth:`_check_base_kind`.
    """

    def __init__(self, **params: Any) -> None:
        super().__init__(**self._normalise(dict(params)))

    def __call__(self: _Wrapped, base: Any = None, /, **kwargs: Any) -> _Wrapped:
        """Return a copy with ``base`` (positional) and/or keyword parameters replaced."""
        params = dict(self.params)
        if base is not None:
            if "base" in kwargs:
                raise TypeError(f"{self.NAME}: base measure given twice")
            kwargs["base"] = base
        if "base" in kwargs and "cutoff" not in kwargs:
            params.pop("cutoff", None)  # a new base brings its own cutoff (UE keeps it apart)
        params.update(kwargs)
        return type(self)(**params)

    # -- parameters -------------------------------------------------------------------------------
    def _normalise(self, params: dict[str, Any]) -> dict[str, Any]:
        """Check the parameter names and the base; subclasses extend this for their own parameters."""
        unknown = sorted(set(params) - set(self.SUPPORTED_PARAMS))
        if unknown:
            raise TypeError(
                f"{self.NAME}: unknown parameter(s) {unknown}; supported: {sorted(self.SUPPORTED_PARAMS)}"
            )
        if params.get("base") is None:
            params.pop("base", None)  # None: not given
        else:
            params["base"] = self._check_base(params["base"])
        return params

    def _check_base(self, base: Any) -> Measure:
        if isinstance(base, str):
            base = parse_measure(base)
        if not isinstance(base, Measure):
            raise TypeError(
                f"{self.NAME}: base must be an ir_measures measure (e.g. nDCG@20) or its name, got {base!r}"
            )
        self._check_base_kind(base)
        if isinstance(base, WrappedMeasure):
            return base
        # a base whose cutoff the wrapper keeps apart (UE(base='P')@10) is complete only with it
        return checked_base(base, f"{self.NAME}: invalid base measure", "cutoff" not in self.SUPPORTED_PARAMS)

    def _check_base_kind(self, base: Measure) -> None:
        """Raise if ``base`` cannot be this measure's base (every measure can, by default)."""

    # -- accessors --------------------------------------------------------------------------------
    @property
    def base(self) -> Measure:
        """The base measure (with its cutoff), whose per-topic values this measure transforms."""
        base = self.params.get("base")
        if base is None:
            raise ValueError(
                f"{self.NAME} needs a base measure, e.g. {self.NAME}(nDCG@10): no base measure given"
            )
        cutoff = self.params.get("cutoff") if "cutoff" in self.SUPPORTED_PARAMS else None
        return base if cutoff is None else base(cutoff=cutoff)

    # -- representation ---------------------------------------------------------------------------
    def __repr__(self) -> str:
        # ir_measures hashes and compares measures through repr for every per-query value: compute once
        cached = self.__dict__.get("_repr")
        if cached is None:
            cached = self.__dict__["_repr"] = self._make_repr()
        return cached

    def _make_repr(self) -> str:
        raise NotImplementedError


# -- parsing ---------------------------------------------------------------------------------------
class _Source:
    """The text being parsed, with trec_eval's dotted names (``P.10``) replaced by placeholders."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.dotted: dict[str, str] = {}
        self.code = self._replace_dotted(text)

    def _replace_dotted(self, text: str) -> str:
        # Python reads "P.10" as the name P followed by the number .10; join them again (not inside
        # string literals, which tokenize keeps whole)
        if "\n" in text or "." not in text:
            return text
        try:
            tokens = list(tokenize.generate_tokens(io.StringIO(text).readline))
        except (tokenize.TokenError, SyntaxError):
            return text
        spans = []
        for left, right in zip(tokens, tokens[1:], strict=False):
            if (
                left.type == tokenize.NAME
                and right.type == tokenize.NUMBER
                and right.string.startswith(".")
                and left.end == right.start
            ):
                spans.append((left.start[1], right.end[1]))
        for start, end in reversed(spans):
            key = f"_trec_name_{len(self.dotted)}"
            self.dotted[key] = text[start:end]
            text = text[:start] + key + text[end:]
        return text

    def name(self, identifier: str) -> str:
        return self.dotted.get(identifier, identifier)


def trec_measures(name: str) -> list[Measure] | None:
    """``ir_measures.parse_trec_measure(name)``, or None where it is not a trec_eval name."""
    try:
        with contextlib.redirect_stdout(io.StringIO()):  # it prints the members of a family it skips
            found = ir_measures.parse_trec_measure(name)
    except (ValueError, KeyError, TypeError, AttributeError, ImportError):
        return None
    if len(found) == 1 and found[0].params and name not in _trec_base_names():
        # parse_trec_measure matches a prefix: "ndcg_cut_1O" reads as nDCG@1; a name with a parameter
        # must end with the parameter's value
        (value,) = found[0].params.values()
        tail = re.search(r"[0-9]+(?:\.[0-9]+)?$", name)
        if tail is None or float(tail.group()) != float(value):
            return None
    return list(found) or None


@functools.cache
def _trec_base_names() -> frozenset[str]:
    """trec_eval's measure names without parameters (``set_F``, ``map``), as pytrec_eval lists them."""
    try:
        import pytrec_eval
    except ImportError:  # pragma: no cover - ir_measures' trec names need it anyway
        return frozenset()
    return frozenset(pytrec_eval.supported_measures)


def _one_trec_measure(name: str, where: str) -> Measure | None:
    found = trec_measures(name)
    if found is None:
        return None
    if len(found) != 1:
        shown = ", ".join(repr(m) for m in found[:5]) + (", ..." if len(found) > 5 else "")
        raise ValueError(f"cannot parse measure {where!r}: {name!r} names {len(found)} measures ({shown}); "
                         "give one")
    return found[0]


def _resolve_name(identifier: str, source: _Source) -> Measure:
    name = source.name(identifier)
    if name in ir_measures.measures.registry:
        return ir_measures.measures.registry[name]
    measure = _one_trec_measure(name, source.text)
    if measure is None:
        raise MeasureNameError(
            f"cannot parse measure {source.text!r}: unknown measure {name!r} "
            "(neither an ir_measures nor a trec_eval name)"
        )
    return measure


_NON_FINITE = {"nan": math.nan, "inf": math.inf, "infinity": math.inf}


def _node_to_value(node: ast.expr, source: _Source, key: str) -> Any:
    """A keyword's value: a literal; for ``base``, a measure; ``nan``/``inf`` as the floats they name.

    ``alpha=nan`` is thereby refused by the parameter's own check (``alpha must be a finite
    number``), as ``--alpha nan`` is, not taken for a measure named ``nan``.
    """
    try:
        return ast.literal_eval(node)
    except ValueError:
        pass
    sign = 1.0
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        sign, node = (-1.0 if isinstance(node.op, ast.USub) else 1.0), node.operand
    if isinstance(node, ast.Name) and node.id.lower() in _NON_FINITE:
        return sign * _NON_FINITE[node.id.lower()]
    if key != "base" and isinstance(node, ast.Name):
        raise ValueError(f"cannot parse measure {source.text!r}: {key}={source.name(node.id)} is not a value "
                         f"(a number, or a name in quotes: {key}='{source.name(node.id)}')")
    return _node_to_measure(node, source)


def _node_to_measure(node: ast.expr, source: _Source) -> Measure:
    at_param = None
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.MatMult):
        # a plain literal, as the stock parser: "P@-1" and "nDCG@+5" stay errors
        if not isinstance(node.right, ast.Constant):
            raise ValueError(f"cannot parse measure {source.text!r}: the value after @ must be a number")
        at_param = node.right.value
        node = node.left
    args: dict[str, Any] = {}
    positional: list[ast.expr] = []
    if isinstance(node, ast.Call):
        positional = list(node.args)
        for keyword in node.keywords:
            if keyword.arg is None:
                raise ValueError(f"cannot parse measure {source.text!r}: ** arguments are not allowed")
            args[keyword.arg] = _node_to_value(keyword.value, source, keyword.arg)
        node = node.func
    if not isinstance(node, ast.Name):
        raise _NotAnExpression(f"cannot parse measure {source.text!r}: unexpected expression; {_PARSE_HELP}")
    proto = _resolve_name(node.id, source)
    if positional:
        if not isinstance(proto, WrappedMeasure) or len(positional) > 1:
            raise ValueError(
                f"cannot parse measure {source.text!r}: only the base of a risk measure or UE may be "
                f"positional (write {source.name(node.id)}(k=v,...))"
            )
        if "base" in args:
            raise ValueError(f"cannot parse measure {source.text!r}: base measure given twice")
        args["base"] = _node_to_measure(positional[0], source)
    if at_param is not None:
        args[proto.AT_PARAM] = at_param
    return proto(**args)


class _NotAnExpression(ValueError):
    """The text is not a measure expression (it may still be a trec_eval name)."""


def parse_measure(measure: str | Measure) -> Measure:
    """Parse a measure name: ir_measures' and trec_eval's names, and the wrapped measures' nested forms.

    Accepted, for example: ``nDCG@10``, ``P(rel=2)@10``, ``AP`` (as ``ir_measures.parse_measure``);
    ``ndcg_cut_10``, ``P.10``, ``map`` (as ``ir_measures.parse_trec_measure``, one measure only);
    ``URisk(nDCG@20,alpha=5,baseline='BM25')``, ``TRisk(ndcg_cut_10,alpha=5)``, ``UE(nDCG@10)`` and
    ``UE(base='nDCG@10')`` (the base positional or by keyword, as a name or a nested measure); and
    negative numbers inside literals (``nDCG(gains={-2:0,0:0,1:1})@20``). ``ir_measures.parse_measure``
    itself is left as it is: it reads the keyword forms (``URisk(base='nDCG@20')``) only.

    The measure's parameters are checked now: a rank cutoff below 1 (``nDCG@0``) and an invalid
    parameter (``P@2.5``, ``P@5.0``: ir_measures wants an int) are errors; inside a risk measure or UE
    an integral float cutoff is made an int (``URisk(nDCG@20.0)`` is ``URisk(nDCG@20)``).

    Args:
        measure: the measure's name (or a measure, returned checked).

    Returns:
        The measure object.

    Raises:
        ValueError: the text is not a measure expression, or a parameter is invalid. An unknown
            name raises :class:`MeasureNameError`, a ``ValueError`` that is also a ``NameError``.
        TypeError: ``measure`` is not a str or a measure, or a wrapped measure got an unknown parameter.
    """
    if isinstance(measure, Measure):
        return _checked(measure, repr(measure))
    if not isinstance(measure, str):
        raise TypeError(f"a measure name must be a str, got {type(measure).__name__}")
    text = measure.strip()
    if not text:
        raise ValueError(f"cannot parse measure {measure!r}: empty name; {_PARSE_HELP}")
    source = _Source(text)
    try:
        node = ast.parse(source.code, mode="eval").body
        parsed = _node_to_measure(node, source)
    except (SyntaxError, _NotAnExpression) as e:
        trec = _one_trec_measure(text, text)  # "ndcg_cut.10,20" and the like
        if trec is None:
            reason = e.msg if isinstance(e, SyntaxError) else "unexpected expression"
            raise ValueError(f"cannot parse measure {text!r}: {reason}; {_PARSE_HELP}") from None
        parsed = trec
    return _checked(parsed, text)


def _checked(measure: Measure, text: str) -> Measure:
    if isinstance(measure, WrappedMeasure):
        return measure  # checked when built
    try:
        same = text == repr(measure)
    except KeyError:  # an unknown parameter: named by checked_base
        same = False
    what = "invalid measure" if same else f"invalid measure {text!r}, read as"
    return checked_base(measure, what, complete=False, as_base=False)
