package org.clustersim.study.scenario;

import static org.clustersim.study.scenario.ScenarioFields.*;
import static org.clustersim.study.scenario.SectionChecks.given;

import java.util.EnumSet;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;

import org.clustersim.core.input.Section;
import org.clustersim.core.input.SourceNode;
import org.clustersim.strategies.cost.Bf16Layers;
import org.clustersim.strategies.cost.CudaGraphs;
import org.clustersim.strategies.cost.Fp8Recipe;
import org.clustersim.strategies.cost.Precision;
import org.clustersim.strategies.cost.RecomputeModule;

/**
 * The {@code training} section of a scenario: batch sizes, sequence length, precision and FP8
 * recipe, recomputation (Megatron-core's {@code recompute_modules}, or MaxText's {@code remat}
 * through {@link TpuSectionReader}) and the optimizer's byte counts. Kept apart from
 * {@link ScenarioReader}, which calls it.
 */
final class TrainingSectionReader {
    /** The {@code training} section. */
    private final Section section;

    TrainingSectionReader(Section training) {
        this.section = training;
    }

    /** The training settings, with MaxText's {@code remat} policy in place of recompute where given. */
    Scenario.Training read() {
        Scenario.Training training = training();
        Optional<TpuSectionReader.Remat> remat = TpuSectionReader.remat(section);
        if (remat.isEmpty()) {
            return training;
        }
        Scenario.Training t = training;
        return new Scenario.Training(t.globalBatch(), t.microBatch(), t.seqLen(), t.precision(), t.fp8Recipe(),
                remat.get().recompute(), t.gradAccumulationFusion(), t.fp8ParamGather(), t.mainGradBytes(),
                remat.get().modules(), t.adamMomentBytes(), remat.get().memory(), t.bf16Layers(),
                t.cpuOffloadLayers(), t.cudaGraphs());
    }

    private Scenario.Training training() {
        int global = GLOBAL_BATCH.requiredInteger(section).orElse(1);
        int micro = MICRO_BATCH.integer(section);
        int seq = SEQ_LEN.integer(section);
        Precision precision = PRECISION.choice(section);
        Scenario.Recompute recompute = RECOMPUTE.choice(section);
        Fp8Recipe recipe = FP8_RECIPE.choice(section);
        if (given(section, "fp8Recipe") && precision != Precision.FP8) {
            section.error("fp8Recipe", "a scaling recipe only applies to training.precision: fp8"
                    + (precision == Precision.NVFP4 ? " (nvfp4 is a recipe of its own)" : ""));
        }
        boolean fusion = GRAD_FUSION.bool(section);
        boolean fp8Gather = FP8_GATHER.bool(section);
        boolean lowPrecision = precision == Precision.FP8 || precision == Precision.NVFP4;
        if (fp8Gather && !lowPrecision) {
            section.error("fp8ParamGather", "gathering low-precision weights needs training.precision: fp8 or nvfp4");
        }
        int bf16Start = BF16_AT_START.integer(section);
        int bf16End = BF16_AT_END.integer(section);
        for (String f : List.of("bf16LayersAtStart", "bf16LayersAtEnd")) {
            if (given(section, f) && !lowPrecision) {
                section.error(f, "keeping layers in bf16 needs training.precision: fp8 or nvfp4");
            }
        }
        int mainGrad = MAIN_GRAD.choice(section);
        int moments = ADAM_MOMENTS.choice(section);
        Set<RecomputeModule> modules = recomputeModules(recompute);
        int offload = CPU_OFFLOAD_LAYERS.integer(section);
        CudaGraphs graphs = CUDA_GRAPHS.choice(section);
        return new Scenario.Training(global, micro, seq, precision, recipe, recompute, fusion, fp8Gather, mainGrad,
                modules, moments, null, new Bf16Layers(bf16Start, bf16End), offload, graphs);
    }

    /**
     * {@code training.recomputeModules}: Megatron-core's {@code recompute_modules} names, each once,
     * with {@code recompute: selective}; empty when absent (the attention core).
     */
    private Set<RecomputeModule> recomputeModules(Scenario.Recompute recompute) {
        List<SourceNode> items = RECOMPUTE_MODULES.list(section);
        if (!given(section, "recomputeModules")) {
            return Set.of();
        }
        Set<RecomputeModule> out = EnumSet.noneOf(RecomputeModule.class);
        String path = section.pathOf("recomputeModules");
        for (int i = 0; i < items.size(); i++) {
            SourceNode item = items.get(i);
            Optional<RecomputeModule> m = item instanceof SourceNode.ScalarNode sc
                    && sc.kind() == SourceNode.ScalarKind.STRING ? RecomputeModule.byId(sc.text())
                    : Optional.empty();
            if (m.isEmpty()) {
                section.diagnostics().error(item.location(), path + "[" + i + "]", "found " + item.describe()
                        + "; expected one of " + RecomputeModule.names());
            } else if (!m.get().supported()) {
                section.diagnostics().error(item.location(), path + "[" + i + "]", "not supported yet: recomputing '"
                        + m.get().id() + "' (the whole MoE layer, its all-to-alls replayed) is not modelled");
            } else if (!out.add(m.get())) {
                section.diagnostics().error(item.location(), path + "[" + i + "]", "found '" + m.get().id()
                        + "' twice; expected each module once");
            }
        }
        if (items.isEmpty()) {
            section.error("recomputeModules", "found an empty list; expected at least one of " + RecomputeModule.names());
        }
        if (recompute != Scenario.Recompute.SELECTIVE) {
            section.error("recomputeModules", "found a list with recompute: " + recompute.name().toLowerCase(Locale.ROOT)
                    + "; expected recompute: selective (Megatron-core applies recompute_modules under "
                    + "--recompute-granularity selective only)");
            return Set.of();
        }
        return out;
    }
}
