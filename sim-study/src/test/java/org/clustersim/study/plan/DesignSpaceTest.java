package org.clustersim.study.plan;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HashSet;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

/** Which layouts a plan's space forms, in which order, and what it drops and why. */
class DesignSpaceTest {
    private static final DesignSpace.Model MOE = new DesignSpace.Model(8, false, false, false);

    /**
     * 8 GPUs, 8 sequences, 8 layers: 1F1B and interleaved (v 2), tp 1, 2, pp 1, 2, cp 1 (ring
     * listed), no and selective recomputation (the base's modules and core_attn+mlp), ZeRO 1 and 3
     * (fsdp2), param gather and TP overlap off and on, offload of none or 2 layers.
     */
    private static DesignSpace small() {
        return new DesignSpace(List.of("1f1b", "interleaved"), List.of(1, 2), List.of(1, 2), List.of(1),
                List.of("ring"), List.of(1), List.of(0), List.of(2), List.of(1), List.of("none", "selective"),
                List.of("", "core_attn+mlp"), List.of(1, 3), List.of("fsdp2"), List.of(false, true),
                List.of(false, true), List.of(0.0), List.of(0, 2), DesignSpace.Model.DENSE);
    }

    @Test
    void aSmallSpaceFormsWhatTheRulesAllowCountedByHand() {
        DesignSpace.Enumeration e = small().enumerate(8, 8, 8);
        // schedule x pp: (1f1b, 1), (1f1b, 2), (interleaved, 2), for tp 1 and 2; each of those takes
        // recompute none (offload 0 or 2 at pp 1, else 1), selective with 2 module sets; ZeRO 1 with
        // gather off/on or ZeRO 3 with fsdp2: 3; TP overlap 1 at tp 1, 2 at tp 2
        int tp1 = 3 * (4 + 3 + 3);
        int tp2 = 2 * tp1;
        assertEquals(tp1 + tp2, e.layouts().size());
        Map<String, Integer> expected = Map.of(
                "pp 1 runs every schedule alike (1f1b kept)", 2,
                // one per (schedule, tp, pp, cp)
                "cpVariant with cp 1", 6,
                "recomputeModules without selective recomputation", 6,
                // per (schedule, tp, pp, cp, recompute, modules): 6 x 3
                "zero3Impl without ZeRO 3", 18,
                "overlapParamGather without ZeRO 1 or 2", 18,
                // at tp 1: 3 (schedule, pp) x 3 (recompute, modules) x 3 (ZeRO, its options)
                "tp-overlap with tp 1", 27,
                // pp 2: 2 at tp 1 x 9, 2 at tp 2 x 18
                "offload with pp > 1", 54,
                // pp 1, selective: 2 module sets x 3 ZeRO x (1 + 2) TP overlaps
                "offload under recomputation", 18);
        assertEquals(expected, e.dropped());
    }

    @Test
    void theOrderIsFixedScheduleFirstAndNoLayoutComesTwice() {
        List<Layout> a = small().enumerate(8, 8, 8).layouts();
        assertEquals(a, small().enumerate(8, 8, 8).layouts());
        int firstInterleaved = 0;
        while (!a.get(firstInterleaved).schedule().equals("interleaved")) {
            firstInterleaved++;
        }
        for (int i = firstInterleaved; i < a.size(); i++) {
            assertEquals("interleaved", a.get(i).schedule(), "schedule is the outermost knob");
        }
        assertEquals(new Layout(1, 1, 1, 1, 0, 1, 8, 1, "none", "", 1, "", "1f1b", "", false, false, 0, 0), a.get(0));
        assertEquals(new Layout(1, 1, 1, 1, 0, 1, 8, 1, "none", "", 1, "", "1f1b", "", false, false, 0, 2), a.get(1),
                "offload is the innermost knob");
        assertEquals(a.size(), new HashSet<>(a).size());
    }

    @Test
    void optionsAppearOnlyWhereTheyApply() {
        for (Layout l : small().enumerate(8, 8, 8).layouts()) {
            assertTrue(!l.tpOverlap() || l.tp() > 1, l.label());
            assertTrue(!l.overlapParamGather() || l.zero() == 1 || l.zero() == 2, l.label());
            assertEquals(l.zero() == 3, !l.zero3Impl().isEmpty(), l.label());
            assertTrue(l.recomputeModules().isEmpty() || l.recompute().equals("selective"), l.label());
            assertTrue(l.offloadLayers() == 0 || l.pp() == 1 && l.recompute().equals("none"), l.label());
            assertEquals("", l.cpVariant(), "cp 1 takes no variant");
        }
    }

    @Test
    void valuesWithTheSameEffectAreFormedOnce() {
        DesignSpace s = new DesignSpace(List.of("1f1b"), List.of(2), List.of(1), List.of(2),
                List.of("", "all-gather", "ring"), List.of(1, 2), List.of(0, 2, 1), List.of(2), List.of(1),
                List.of("selective"), List.of("", "core_attn", "mlp+core_attn", "core_attn+mlp"), List.of(3),
                List.of("", "megatron-fsdp"), List.of(false), List.of(false), List.of(0.0), List.of(0), MOE);
        DesignSpace.Enumeration e = s.enumerate(4, 4, 4);
        // cp variant: the base's (all-gather) and ring; ep 1 and 2 with etp the base's (tp) and 1;
        // modules the base's (core_attn) and core_attn+mlp; ZeRO 3 only with ep 1 and etp = tp; one framework
        assertEquals(2 * 2, e.layouts().size(), e.layouts().toString());
        assertTrue(e.layouts().stream().allMatch(l -> l.etp() == 0 && l.ep() == 1 && l.zero3Impl().isEmpty()));
        assertTrue(e.layouts().stream().anyMatch(l -> l.recomputeModules().equals("core_attn+mlp")));
        // repeats: all-gather once; etp 2 per (variant, ep): 4; core_attn per (variant, ep, etp): 8;
        // megatron-fsdp per (variant, modules) reaching ZeRO 3: 4
        assertEquals(1 + 4 + 8 + 4, e.dropped().get("same effect as an earlier value (a default given twice)"));
        // ZeRO 3 refused for ep 2 or etp 1: 3 of the 4 (ep, etp) pairs, per variant and module set
        assertEquals(3 * 2 * 2, e.dropped().get("ZeRO 3 with experts apart (ep > 1 or etp != tp)"));
    }

    @Test
    void expertKnobsNeedExpertsAndTheirSizesMustFold() {
        DesignSpace dense = new DesignSpace(List.of("1f1b"), List.of(2), List.of(1), List.of(1), List.of(""),
                List.of(1, 2), List.of(0, 1), List.of(2), List.of(1), List.of("selective"),
                List.of("", "core_attn+moe_act", "mla_up_proj"), List.of(1), List.of(""), List.of(false),
                List.of(false), List.of(0.0), List.of(0), DesignSpace.Model.DENSE);
        DesignSpace.Enumeration d = dense.enumerate(8, 8, 4);
        assertEquals(1, d.layouts().size(), d.layouts().toString());
        assertEquals(Map.of("ep > 1 without experts", 1, "etp without experts", 1,
                "recomputeModules names experts the model lacks", 1,
                "recomputeModules names mla_up_proj without latent attention", 1), d.dropped());

        DesignSpace moe = new DesignSpace(List.of("1f1b"), List.of(2), List.of(1), List.of(1), List.of(""),
                List.of(1, 3, 4, 8), List.of(1, 4), List.of(2), List.of(1), List.of("full"), List.of(""),
                List.of(1), List.of(""), List.of(false), List.of(false), List.of(0.0), List.of(0), MOE);
        // 8 GPUs, tp 2: dp 4, a stage of 8 GPUs; etp 4 does not divide tp, etp 1 x ep 8 folds
        DesignSpace.Enumeration m = moe.enumerate(8, 8, 4);
        assertEquals(List.of(1, 4, 8), m.layouts().stream().map(Layout::ep).toList());
        assertEquals(Map.of("ep does not divide the experts", 1, "etp does not divide tp x cp", 3), m.dropped());
        DesignSpace.Enumeration folded = moe.enumerate(4, 8, 4);
        // 4 GPUs, tp 2: a stage of 4, so etp 1 x ep 8 does not fold
        assertEquals(List.of(1, 4), folded.layouts().stream().map(Layout::ep).toList());
        assertEquals(1, folded.dropped().get("etp x ep does not divide a stage's GPUs"));
    }

    @Test
    void deepSpeedZero3TakesNoPipelineAndOffloadKeepsALayerOnTheGpu() {
        DesignSpace s = new DesignSpace(List.of("1f1b"), List.of(1), List.of(1, 2), List.of(1), List.of(""),
                List.of(1), List.of(0), List.of(2), List.of(1), List.of("none"), List.of(""), List.of(3),
                List.of("deepspeed", "fsdp2"), List.of(false), List.of(false), List.of(0.0, 40.0),
                List.of(0, 3, 4), DesignSpace.Model.DENSE);
        DesignSpace.Enumeration e = s.enumerate(4, 4, 4);
        // pp 1: both frameworks, offload 0 or 3 (4 is every layer); pp 2: fsdp2 alone, no offload
        assertEquals(2 * 2 + 1, e.layouts().size(), e.layouts().toString());
        assertEquals(1, e.dropped().get("deepspeed ZeRO 3 with pipeline stages or chunks"));
        assertEquals(2, e.dropped().get("offload of a whole stage's layers"));
        assertEquals(3, e.dropped().get("bucketMB with ZeRO 3 (gradients reduced layer by layer)"));
        assertTrue(e.layouts().stream().allMatch(l -> l.bucketMB() == 0));
    }

    @Test
    void moduleSetsAreWrittenInMegatronOrderAndBadNamesAreRefused() {
        assertEquals("core_attn+mlp+layernorm", DesignSpace.canonicalModules("layernorm+mlp+core_attn"));
        assertEquals("", DesignSpace.canonicalModules(""));
        IllegalArgumentException twice = assertThrows(IllegalArgumentException.class,
                () -> DesignSpace.canonicalModules("mlp+mlp"));
        assertTrue(twice.getMessage().contains("named twice"), twice.getMessage());
        IllegalArgumentException moe = assertThrows(IllegalArgumentException.class,
                () -> DesignSpace.canonicalModules("moe"));
        assertTrue(moe.getMessage().contains("not a module the simulator recomputes"), moe.getMessage());
    }

    @Test
    void theWideSpaceOffersOnlyWhatTheModelHas() {
        DesignSpace dense = DesignSpace.wide(DesignSpace.Model.DENSE, 32, 4096);
        assertEquals(List.of(1), dense.ep());
        assertEquals(List.of(0), dense.etp());
        assertEquals(List.of(1, 2, 4), dense.cp());
        assertEquals(List.of(0, 8, 16, 24), dense.offloadLayers());
        assertFalse(dense.recomputeModules().stream().anyMatch(m -> m.contains("moe") || m.contains("mla")));
        assertEquals(List.of(1, 2), DesignSpace.wide(DesignSpace.Model.DENSE, 32, 2048).cp(),
                "each CP rank keeps 1024 tokens");
        DesignSpace deepseek = DesignSpace.wide(new DesignSpace.Model(256, true, true, false), 61, 4096);
        assertEquals(List.of(1, 2, 4, 8, 16, 32, 64), deepseek.ep());
        assertTrue(deepseek.recomputeModules().contains("core_attn+mla_up_proj+moe_act+shared_experts+layernorm"),
                deepseek.recomputeModules().toString());
        DesignSpace mixtral = DesignSpace.wide(MOE, 32, 4096);
        assertEquals(List.of(1, 2, 4, 8), mixtral.ep());
        assertFalse(mixtral.recomputeModules().stream().anyMatch(m -> m.contains("shared") || m.contains("mla")));
    }

    @Test
    void theWideSpaceForGpt3OnAThousandGpusIsOnTheOrderOfCalculonsAndHasNoRepeats() {
        // GPT-3 175B (96 layers) on 1024 A100, 1536 sequences of 2048 tokens: Calculon's ~180k configurations
        DesignSpace.Enumeration e = DesignSpace.wide(DesignSpace.Model.DENSE, 96, 2048).enumerate(1024, 1536, 96);
        int n = e.layouts().size();
        assertTrue(n >= 100_000 && n <= 300_000, n + " layouts");
        assertEquals(n, new HashSet<>(e.layouts()).size());
        assertTrue(e.layouts().stream().map(Layout::schedule).distinct().count() == 8, "every schedule");
        DesignSpace.Enumeration narrow = DesignSpace.narrow(DesignSpace.Model.DENSE).enumerate(1024, 1536, 96);
        assertTrue(narrow.layouts().size() < 300, narrow.layouts().size() + " layouts");
    }
}
