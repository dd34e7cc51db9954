"""Model semantics: the shipped table and reference behaviours 1-6."""

import json

import pytest

from openalice import models
from openalice.core import resources
from openalice.core.schema import Validator


def test_shipped_table_is_valid_against_its_schema():
    table = json.loads(resources.data_path("default", "model-semantics.json").read_text())
    assert Validator(resources.schema("model-semantics")).errors(table) == []


def test_every_reference_model_is_in_the_table():
    expected = {
        "anthropic": ["claude-opus-5", "claude-opus-4-8", "claude-sonnet-5", "claude-fable-5", "claude-fable-5-1",
                      "claude-sonnet-4-6", "claude-haiku-4-5"],
        "openai": ["gpt-5.6", "gpt-5.6-sol", "gpt-5.6-terra", "gpt-5.6-luna", "gpt-5.5", "gpt-5.4", "gpt-6-astra"],
        "xai": ["grok-4.6", "grok-4.5"],
        "google": ["gemini-3.6-flash", "gemini-3.7-flash", "gemini-3.8-flash", "gemini-3.5-flash",
                   "gemini-3.1-flash-lite", "gemini-3.5-flash-lite", "gemini-3.1-pro-preview", "gemini-2.5-pro",
                   "gemini-2.5-flash", "gemini-2.5-flash-lite"],
        "minimax": ["MiniMax-M3", "MiniMax-M2.7", "MiniMax-M2.5", "MiniMax-M2.7-highspeed", "MiniMax-M2.5-highspeed"],
        "glm": ["glm-5.2", "glm-5.3"],
        "kimi": ["kimi-k3", "kimi-k2.7-code", "kimi-k2.7-code-highspeed", "kimi-k2.6"],
        "deepseek": ["deepseek-v4-flash", "deepseek-v4-pro"],
        "longcat": ["LongCat-2.0"],
        "openrouter": ["tencent/hy3", "xiaomi/mimo-v2.5", "anthropic/claude-sonnet-5", "anthropic/claude-opus-5",
                       "anthropic/claude-fable-5", "openai/gpt-5.6-sol", "openai/gpt-5.6-terra",
                       "openai/gpt-5.6-luna", "x-ai/grok-4.6", "moonshotai/kimi-k3", "deepseek/deepseek-v4-pro",
                       "deepseek/deepseek-v4-flash-0731", "minimax/minimax-m3", "z-ai/glm-5.2",
                       "google/gemini-3.7-flash"],
    }
    for vendor, ids in expected.items():
        for model in ids:
            assert models.resolve(vendor, model) is not None, (vendor, model)
    listed = {(s.vendor, s.model) for s in models.list_models()}
    assert listed == {(v, m) for v, ids in expected.items() for m in ids}


def test_item1_resolution_is_exact():
    sol = models.resolve("openai", "gpt-5.6-sol")
    assert (sol.context_window, sol.reasoning.mode, sol.reasoning.default_effort) == (1_050_000, "optional", "medium")
    assert models.resolve("openai", "gpt-5.6-luna").context_window == 400_000
    assert models.resolve("anthropic", "default") is None
    assert models.resolve("custom", "gpt-5.6") is None
    assert models.resolve("openai", "future-model") is None
    # trimmed, but no aliases and no prefix matching
    assert models.resolve("openai", "  gpt-5.6-sol ").model == "gpt-5.6-sol"
    assert models.resolve("openai", "gpt-5.6-sol-2") is None
    assert models.resolve("openai", "GPT-5.6-SOL") is None
    assert models.resolve("openai", "") is None and models.resolve(None, "gpt-5.6") is None


def test_item2_describe():
    assert models.describe(models.resolve("longcat", "LongCat-2.0")) == "Reasoning optional · thinking default on"
    assert models.describe(models.resolve("deepseek", "deepseek-v4-pro")) == (
        "Reasoning optional · default effort high · interleaved thinking · 1M context")
    assert models.describe(models.resolve("openai", "gpt-5.6")).endswith("1.05M context")
    assert models.describe(models.resolve("openai", "gpt-5.6-luna")).endswith("400K context")
    assert models.describe(models.resolve("openrouter", "xiaomi/mimo-v2.5")) == "1.05M context"
    assert models.describe(None).startswith("unknown model")


def test_missing_field_means_unknown_not_false():
    glm = models.resolve("glm", "glm-5.2")
    assert glm.context_window is None                     # deliberately omitted
    assert glm.reasoning.default_effort is None
    assert glm.reasoning.interleaved is None              # unknown, not False
    assert "contextWindow" not in glm.to_dict()
    mimo = models.resolve("openrouter", "xiaomi/mimo-v2.5")
    assert mimo.reasoning is None and models.supports_reasoning(mimo) is None
    assert models.supports_reasoning(models.resolve("anthropic", "claude-haiku-4-5")) is True


def test_every_vendor_default_resolves_except_cursor():
    for vendor in models.vendors():
        default = models.default_model(vendor)
        if vendor == "cursor":
            assert default == "auto" and models.resolve(vendor, default) is None
        elif vendor == "custom":
            assert default is None
        else:
            assert models.resolve(vendor, default) is not None, vendor


def test_openrouter_slugs_copy_origin_facts():
    copy = models.resolve("openrouter", "deepseek/deepseek-v4-flash-0731")
    origin = models.resolve("deepseek", "deepseek-v4-flash")
    assert copy.same_as == "deepseek/deepseek-v4-flash"
    assert (copy.context_window, copy.max_output_tokens, copy.reasoning) == (
        origin.context_window, origin.max_output_tokens, origin.reasoning)


def test_subscription_variant_narrows_codex_presets():
    sol = models.resolve("openai", "gpt-5.6-sol", auth_type="subscription")
    assert sol.context_window == 272_000 and sol.reasoning.mode == "required"
    assert sol.reasoning.efforts[-1] == "ultra" and sol.reasoning.default_effort == "low"
    luna = models.resolve("openai", "gpt-5.6-luna", auth_type="subscription")
    assert "ultra" not in luna.reasoning.efforts and luna.reasoning.default_effort == "medium"
    assert models.resolve("openai", "gpt-5.5", auth_type="subscription").context_window == 1_050_000


def test_item3_known_model_registry_reasoning_wins_and_context_is_min():
    facts = models.effective("google", "gemini-3.1-flash-lite",
                             {"model": "gemini-3.1-flash-lite", "contextWindow": 1_000_000, "reasoning": False})
    assert facts["contextWindow"] == 1_000_000 and facts["reasoning"] is True


def test_item4_registered_context_caps_a_larger_configured_one():
    facts = models.effective("minimax", "MiniMax-M2.7", {"model": "MiniMax-M2.7", "contextWindow": 1_000_000})
    assert facts["contextWindow"] == 204_800


def test_item5_unknown_model_override_passes_through_or_is_omitted():
    assert models.effective("custom", "my-model") == {}
    assert models.effective("custom", "my-model", {"model": "my-model", "contextWindow": 256_000,
                                                    "reasoning": True}) == {"contextWindow": 256_000,
                                                                            "reasoning": True}


def test_override_binds_to_one_exact_model_id():
    override = {"model": "my-model", "contextWindow": 256_000, "reasoning": True}
    assert models.effective("custom", "my-model-2", override) == {}
    assert models.effective("custom", "My-Model", override) == {}


def test_merge_live_facts():
    fallback = models.resolve("deepseek", "deepseek-v4-pro")
    live = models.ModelSemantics("deepseek", "deepseek-v4-pro", context_window=500_000,
                                 reasoning=models.Reasoning(efforts=("max",)))
    merged = models.merge(fallback, live)
    assert merged.context_window == 500_000 and merged.max_output_tokens == 384_000
    assert merged.reasoning.efforts == ("max",)
    assert merged.reasoning.default_effort is None  # "high" is no longer among the efforts
    off = models.merge(fallback, models.ModelSemantics("deepseek", "deepseek-v4-pro",
                                                       reasoning=models.Reasoning(supported=False)))
    assert (off.reasoning.mode, off.reasoning.supported, off.reasoning.efforts) == ("none", False, ())
    assert models.merge(fallback, None) is fallback


@pytest.mark.parametrize("effort", ["none", "minimal", "low", "medium", "high", "xhigh", "max", "ultra"])
def test_effort_ladder(effort):
    assert models.check_effort(effort) == effort


def test_unknown_effort_is_refused():
    from openalice.core.errors import InvalidInput

    with pytest.raises(InvalidInput) as err:
        models.check_effort("extreme")
    assert err.value.code == "bad_effort"
