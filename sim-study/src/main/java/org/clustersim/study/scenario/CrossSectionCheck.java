package org.clustersim.study.scenario;

import static org.clustersim.study.scenario.ScenarioFields.*;
import static org.clustersim.study.scenario.SectionChecks.given;
import static org.clustersim.study.scenario.SectionChecks.report;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import org.clustersim.core.input.Section;
import org.clustersim.strategies.cost.RecomputeModule;
import org.clustersim.strategies.device.DeviceProfile;
import org.clustersim.strategies.model.TransformerModel;
import org.clustersim.strategies.pipeline.ScheduleKind;
import org.clustersim.strategies.training.AllToAllAlgorithm;
import org.clustersim.strategies.training.LayerSplit;
import org.clustersim.strategies.training.LayoutRules;
import org.clustersim.strategies.training.Mesh;
import org.clustersim.topology.ClusterSpec;

/**
 * The checks that span sections of a scenario, run once each section has read without errors:
 * the layer split over the stages, experts and context parallelism against the model, the
 * cluster's GPUs against the layout, the batch against the schedule, and the MoE all-to-all
 * against the servers. Kept apart from {@link ScenarioReader}, which calls it.
 */
final class CrossSectionCheck {
    private final Section clusterSec;
    private final Section parSec;
    private final Section schedSec;
    private final Section trainSec;

    /** The sections an error is reported at. */
    CrossSectionCheck(Section clusterSec, Section parSec, Section schedSec, Section trainSec) {
        this.clusterSec = clusterSec;
        this.parSec = parSec;
        this.schedSec = schedSec;
        this.trainSec = trainSec;
    }

    /** Reports what does not fit together; run only on a scenario whose sections read without errors. */
    void check(ClusterSpec cluster, DeviceProfile device, TransformerModel model, Scenario.Parallelism par,
               ScheduleKind schedule, Scenario.Training training) {
        int stages = par.layout().mesh().pp() * (schedule == ScheduleKind.DUALPIPE ? 1 : par.vp());
        List<LayoutRules.Violation> broken = new ArrayList<>();
        LayoutRules.layerSplit(broken, par.layersPerStage(), stages, par.layout().mesh().pp(), par.vp(), model.layers());
        LayoutRules.experts(broken, model, par.layout().mesh().tp(), par.layout().mesh().ep(), par.layout().mesh().etp());
        List<LayoutRules.Violation> parallel = new ArrayList<>();
        LayoutRules.parallelBlocks(parallel, model, par.layout().mesh().tp(), par.layout().comm().tpCommOverlap());
        if (!parallel.isEmpty() && given(parSec, "mesh")) {
            // on a TPU mesh the overlap is the collective matmul, on by default
            parSec.error("collectiveMatmul", (given(parSec, "collectiveMatmul") ? "found true" : "true by default")
                    + ", but " + model.name() + " has parallel blocks (model.parallelBlocks), whose tensor-parallel "
                    + "exchanges are not modelled overlapped; expected collectiveMatmul: false");
        } else {
            broken.addAll(parallel);
        }
        LayoutRules.contextParallel(broken, par.layout().mesh().cp(), training.seqLen());
        boolean splitBroken = !broken.isEmpty();
        report(parSec, broken);
        if (training.cpuOffloadLayers() > 0 && !splitBroken) {
            LayerSplit split;
            try {
                split = par.layersPerStage() == null ? LayerSplit.even(model.layers(), stages)
                        : LayerSplit.of(model.layers(), par.layersPerStage());
            } catch (IllegalArgumentException e) {
                split = null;
            }
            List<LayoutRules.Violation> offload = new ArrayList<>();
            LayoutRules.cpuOffload(offload, training.cpuOffloadLayers(), par.layout().mesh().pp(), split,
                    training.recompute().cost());
            report(trainSec, offload);
        }
        if (cluster.gpus() != par.gpus()) {
            String where = given(clusterSec, "nodes") ? "nodes" : "gpusPerNode";
            clusterSec.error(where, "the cluster has " + cluster.gpus() + " GPUs (" + cluster.nodes() + " nodes x "
                    + cluster.gpusPerNode() + "), but the layout tp x cp x pp x dp uses " + par.gpus()
                    + "; expected them to be equal");
        }
        // a long: microBatch x dp overflows an int (2^24 x 256 is 0), and a 0 divides nothing
        long perStep = (long) training.microBatch() * par.layout().mesh().dp();
        if (training.globalBatch() % perStep != 0) {
            trainSec.error("globalBatch", "found " + training.globalBatch()
                    + ", expected a multiple of training.microBatch x parallelism.dp (" + perStep + ")");
        } else {
            int m = (int) (training.globalBatch() / perStep);
            try {
                schedule.schedule(par.vp() == 0 ? 1 : par.vp()).validate(par.layout().mesh().pp(), m);
            } catch (IllegalArgumentException e) {
                schedSec.error("kind", e.getMessage() + " (m = training.globalBatch / (microBatch x dp) = " + m + ")");
            }
        }
        List<LayoutRules.Violation> overlap = new ArrayList<>();
        LayoutRules.moeOverlap(overlap, par.overlapMoeExpertParallelComm(), par.layout().mesh().ep(), par.layout().mesh().pp(), schedule,
                training.recompute().cost());
        report(parSec, overlap);
        allToAll(cluster, model, par);
        if (training.recomputeModules().contains(RecomputeModule.MLA_UP_PROJ) && model.latentAttention() == null) {
            trainSec.error("recomputeModules", "found mla_up_proj, but " + model.name() + " has no latent attention "
                    + "(model.latentAttention)");
        }
        precision(cluster, training.precision());
        lowPrecision(device, model, training);
    }

    /**
     * What the Blackwell recipes need: NVFP4 a device profile with a {@code gemm.nvfp4} surface
     * (its rate is taken from nowhere else); MXFP8 block-scaled tensor cores, which Transformer
     * Engine finds on compute capability 10.x only ({@code check_mxfp8_support},
     * transformer_engine/pytorch/quantization.py), that is a profile with an FP4 peak; the layers
     * kept in bf16 no more than the model has.
     */
    private void lowPrecision(DeviceProfile device, TransformerModel model, Scenario.Training training) {
        String name = device == null ? "cluster's" : device.name();
        if (training.precision() == org.clustersim.strategies.cost.Precision.NVFP4
                && (device == null || device.nvfp4Gemm() == null)) {
            trainSec.error("precision", "found nvfp4, but the " + name + " device profile has no gemm.nvfp4 "
                    + "surface (NVFP4 GEMMs need Blackwell's FP4 tensor cores and a measured rate); expected bf16"
                    + (device != null && device.fp8Gemm() != null ? " or fp8" : "") + ", or a profile with gemm.nvfp4");
        }
        if (training.precision() == org.clustersim.strategies.cost.Precision.FP8
                && training.fp8Recipe() == org.clustersim.strategies.cost.Fp8Recipe.MXFP8
                && (device == null || (device.nvfp4Gemm() == null && device.mxfp8Gemm() == null))) {
            trainSec.error("fp8Recipe", "found mxfp8, but the " + name + " device profile has no block-scaled "
                    + "tensor cores (Transformer Engine runs MXFP8 on compute capability 10.x, Blackwell, whose "
                    + "profiles give peakTflops.fp4 and gemm.nvfp4 or gemm.mxfp8); expected delayed, current or blockwise");
        }
        int kept = training.bf16Layers().first() + training.bf16Layers().last();
        if (kept > model.layers()) {
            trainSec.error(training.bf16Layers().last() > 0 ? "bf16LayersAtEnd" : "bf16LayersAtStart", "found "
                    + training.bf16Layers().first() + " + " + training.bf16Layers().last() + " layers kept in bf16, but "
                    + model.name() + " has " + model.layers() + "; expected at most " + model.layers() + " together");
        }
    }

    /**
     * Whether the chip has the training precision's matrix units: fp8 on GPUs with fp8 tensor
     * cores and on tpu7x (TPUs before it list an FP8 peak equal to bf16, or none); int8 (AQT) on
     * TPUs with int8 MXUs only, int8 training on GPUs not being modelled.
     */
    private void precision(ClusterSpec cluster, org.clustersim.strategies.cost.Precision p) {
        org.clustersim.topology.AcceleratorSpec chip = cluster.accelerator();
        if (p.peak(chip) > 0 || p == org.clustersim.strategies.cost.Precision.NVFP4) {
            return; // nvfp4: lowPrecision, from the device profile
        }
        boolean tpu = cluster instanceof org.clustersim.topology.TorusSpec;
        List<String> has = new ArrayList<>(List.of("bf16"));
        if (!tpu) {
            has.add("fp16");
        }
        if (chip.fp8Flops() > 0) {
            has.add("fp8");
        }
        if (chip.int8Flops() > 0) {
            has.add("int8");
        }
        String expected = "; expected " + String.join(", ", has.subList(0, has.size() - 1))
                + (has.size() > 1 ? " or " : "") + has.get(has.size() - 1);
        String found = "found " + p.name().toLowerCase(Locale.ROOT) + ", but ";
        switch (p) {
            case INT8 -> trainSec.error("precision", found + (tpu ? chip.name() + " has no int8 rate modelled (Google "
                    + "publishes none for it)" : "int8 training is modelled on TPUs only (MaxText's AQT int8 on "
                    + "the MXUs of tpu-v4, tpu-v5e, tpu-v5p, tpu-v6e)") + expected);
            case FP8 -> trainSec.error("precision", found + chip.name() + (tpu ? " has no fp8 MXU mode (Google "
                    + "Cloud lists its FP8 peak equal to bf16, or none; tpu7x is the first TPU with fp8)"
                    : " has no fp8 tensor cores") + expected);
            default -> trainSec.error("precision", found + chip.name() + " has no such tensor cores" + expected);
        }
    }

    /**
     * Whether the chosen MoE all-to-all can run: any choice but auto needs expert parallelism;
     * node-limited needs the model's node limit; pxn and node-limited need every EP group to span
     * servers with as many GPUs on each (the rail-aligned plans pair GPUs by local index).
     */
    private void allToAll(ClusterSpec cluster, TransformerModel model, Scenario.Parallelism par) {
        AllToAllAlgorithm a = par.layout().comm().allToAll();
        List<LayoutRules.Violation> broken = new ArrayList<>();
        LayoutRules.allToAll(broken, a, model, par.layout().mesh().ep());
        report(parSec, broken);
        if (a == AllToAllAlgorithm.AUTO || !broken.isEmpty()) {
            return;
        }
        if (a == AllToAllAlgorithm.DIRECT || cluster.gpus() != par.gpus()) {
            return;
        }
        Mesh mesh = par.layout().mesh();
        int perNode = cluster.gpusPerNode();
        for (int p = 0; p < par.layout().mesh().pp(); p++) {
            for (int[] group : mesh.experts().expertParallelGroups(p)) {
                Map<Integer, Integer> onNode = new java.util.TreeMap<>();
                for (int d : group) {
                    onNode.merge(d / perNode, 1, Integer::sum);
                }
                String why = onNode.size() < 2 ? "sits in one server"
                        : onNode.values().stream().distinct().count() > 1 ? "takes unequal numbers of GPUs from "
                        + "its servers" : null;
                if (why != null) {
                    parSec.error("allToAll", "found " + a.id() + ", but the EP group of GPU " + group[0] + " ("
                            + group.length + " GPUs, stage " + p + ") " + why + "; " + a.id() + " pairs GPUs by local index across servers: expected EP "
                            + "groups spanning servers with as many GPUs on each, or direct / auto");
                    return;
                }
            }
        }
    }
}
