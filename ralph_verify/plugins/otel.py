"""``otel``: OpenTelemetry traces of a run, one span per run, iteration, agent call and check.

Active only when the OpenTelemetry API is installed, to the tracer provider set up (or one
the standard ``OTEL_*`` variables ask for); the agent's span follows the GenAI conventions
and its process gets ``TRACEPARENT``."""

from __future__ import annotations

import importlib.util
import os
import sys
from collections.abc import Generator
from typing import TYPE_CHECKING, Any

from ralph_verify.markers import hookimpl

if TYPE_CHECKING:
    from ralph_verify.agents import Agent, AgentRequest, AgentResult
    from ralph_verify.checks.api import Check, CheckResult, VerifyContext
    from ralph_verify.config import Config
    from ralph_verify.loop.session import Iteration, Session
    from ralph_verify.loop.verdict import VerdictProposal

NAME = "otel-tracer"
#: The instrumentation scope of every span.
SCOPE = "ralph-verify"


_WANTED = ("OTEL_TRACES_EXPORTER", "OTEL_EXPORTER_OTLP_ENDPOINT",
           "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT")


def _available() -> bool:
    """Whether tracing is wanted (OpenTelemetry already imported, or an exporter asked for)
    and the OpenTelemetry API can be imported; otherwise nothing is imported."""
    if "opentelemetry" not in sys.modules and not any(os.environ.get(v) for v in _WANTED):
        return False
    try:
        return importlib.util.find_spec("opentelemetry.trace") is not None
    except (ImportError, ValueError):
        return False


def _configure_provider() -> Any:
    """An SDK provider from the standard variables, if asked for and none is set up yet."""
    from opentelemetry import trace

    wanted = os.environ.get("OTEL_TRACES_EXPORTER", "")
    endpoint = (os.environ.get("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT")
                or os.environ.get("OTEL_EXPORTER_OTLP_ENDPOINT"))
    if wanted in ("", "none") and not endpoint:
        return None
    if wanted == "none" or not isinstance(trace.get_tracer_provider(), trace.ProxyTracerProvider):
        return None  # told not to, or someone (opentelemetry-instrument) already did
    try:
        from opentelemetry.sdk.resources import Resource
        from opentelemetry.sdk.trace import TracerProvider
        from opentelemetry.sdk.trace.export import BatchSpanProcessor, ConsoleSpanExporter
    except ImportError:
        return None
    exporter: Any
    if wanted == "console":
        exporter = ConsoleSpanExporter()
    else:
        try:
            from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
        except ImportError:
            return None
        exporter = OTLPSpanExporter()
    provider = TracerProvider(resource=Resource.create(
        {"service.name": os.environ.get("OTEL_SERVICE_NAME", SCOPE)}))
    provider.add_span_processor(BatchSpanProcessor(exporter))
    trace.set_tracer_provider(provider)
    return provider


class Tracer:
    """The spans of one command: the run, then iterations, agent calls and checks within."""

    def __init__(self, config: Config) -> None:
        from opentelemetry import trace

        self._trace = trace
        self.provider = _configure_provider()
        self.tracer = trace.get_tracer(SCOPE)
        command = config.command.name if getattr(config, "command", None) else "ralph-verify"
        self.root = self.tracer.start_span(f"ralph-verify {command}", attributes={
            "ralph.command": command, "ralph.project": str(config.root)})
        self.root_context = trace.set_span_in_context(self.root)
        self.iteration: Any = None
        self.iteration_context = self.root_context

    @hookimpl
    def ralph_iteration_start(self, session: Session, iteration: Iteration) -> None:
        self.iteration = self.tracer.start_span(
            f"iteration {iteration.number}", context=self.root_context,
            attributes={"ralph.session": session.id, "ralph.iteration": iteration.number})
        self.iteration_context = self._trace.set_span_in_context(self.iteration)

    @hookimpl
    def ralph_iteration_end(self, iteration: Iteration) -> None:
        if self.iteration is None:
            return
        self.iteration.set_attribute("ralph.files_changed", len(iteration.files_changed))
        if iteration.verification is not None:
            self.iteration.set_attribute("ralph.passed", iteration.verification.passed)
        self.iteration.end()
        self.iteration = None
        self.iteration_context = self.root_context

    @hookimpl(wrapper=True)
    def ralph_run_agent(self, session: Session, agent: Agent, request: AgentRequest
                        ) -> Generator[None, AgentResult, AgentResult]:
        from opentelemetry.propagate import inject

        name = getattr(agent, "name", "agent")
        model = session.config.get("model")
        span = self.tracer.start_span(f"invoke_agent {name}", context=self.iteration_context,
                                      kind=self._trace.SpanKind.CLIENT, attributes={
                                          "gen_ai.operation.name": "invoke_agent",
                                          "gen_ai.agent.name": name,
                                          **({"gen_ai.request.model": model} if model else {})})
        carrier: dict[str, str] = {}  # W3C trace context: the agent's TRACEPARENT, TRACESTATE
        inject(carrier, context=self._trace.set_span_in_context(span))
        request.env = {**request.env, **{key.upper(): value for key, value in carrier.items()
                                         if key in ("traceparent", "tracestate") and value}}
        with self._trace.use_span(span, end_on_exit=True):  # an exception: recorded, ended
            result = yield
            for key, value in (("gen_ai.usage.input_tokens", result.input_tokens),
                               ("gen_ai.usage.output_tokens", result.output_tokens),
                               ("gen_ai.conversation.id", result.session_id),
                               ("ralph.agent.cost_usd", result.cost_usd),
                               ("ralph.agent.turns", result.turns),
                               ("ralph.agent.exit_code", result.exit_code)):
                if value is not None:
                    span.set_attribute(key, value)
            if result.error or result.timed_out or (result.exit_code not in (0, None)):
                span.set_status(self._trace.Status(
                    self._trace.StatusCode.ERROR,
                    result.error or ("timed out" if result.timed_out else
                                     f"exit {result.exit_code}")))
        return result

    @hookimpl(wrapper=True)
    def ralph_verify_check(self, check: Check, ctx: VerifyContext
                           ) -> Generator[None, CheckResult | None, CheckResult | None]:
        span = self.tracer.start_span(f"check {check.spec.text}", context=self.iteration_context,
                                      attributes={"ralph.check": check.name,
                                                  "ralph.check.spec": check.spec.text})
        with self._trace.use_span(span, end_on_exit=True):  # an exception: recorded, ended
            result = yield
            if result is not None:
                span.set_attributes({"ralph.check.status": result.status.value,
                                     "ralph.check.failures": len(result.failures)})
                if result.metric is not None:
                    span.set_attribute("ralph.check.metric", float(result.metric))
                if result.status.value == "error":
                    span.set_status(self._trace.Status(self._trace.StatusCode.ERROR,
                                                       result.summary))
        return result

    @hookimpl
    def ralph_session_finish(self, session: Session, verdict: VerdictProposal) -> None:
        self.root.set_attributes({"ralph.session": session.id,
                                  "ralph.verdict": verdict.verdict.value,
                                  "ralph.iterations": len(session.iterations)})

    def close(self) -> None:
        if self.iteration is not None:
            self.iteration.end()
        self.root.end()
        if self.provider is not None:
            self.provider.shutdown()


@hookimpl
def ralph_configure(config: Config) -> None:
    if _available() and config.pluginmanager.get_plugin(NAME) is None:
        config.pluginmanager.register(Tracer(config), NAME)


@hookimpl
def ralph_unconfigure(config: Config) -> None:
    tracer = config.pluginmanager.get_plugin(NAME)
    if isinstance(tracer, Tracer):
        tracer.close()
        config.pluginmanager.unregister(tracer, NAME)
