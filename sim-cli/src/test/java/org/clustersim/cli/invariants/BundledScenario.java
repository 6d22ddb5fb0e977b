package org.clustersim.cli.invariants;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * Every bundled and validation scenario the invariants run over: each file under scenarios/
 * (validation rows included; the pending Megatron-Bridge rows, which take minutes each, are
 * left out), with the reductions that keep the largest ones to a few seconds of simulation.
 * A reduction keeps the layout, fabric, schedule, options and model shapes and cuts only
 * layers (and with them an interleaved schedule's chunks per rank), microbatches or replicas, so a relation that holds for the scenario must hold for the
 * reduced one too.
 *
 * @param name      the file under scenarios/, without .yaml
 * @param reduction dotted-path overrides applied before any variant (empty: the scenario as written;
 *                  an empty string removes the field)
 */
record BundledScenario(String name, Map<String, Object> reduction) {
    static final Path ROOT = Path.of("..", "scenarios");

    /** Overrides for the scenarios whose step would take more than a second or two here. */
    private static final Map<String, Map<String, Object>> REDUCTIONS = Map.ofEntries(
            // interleaved on 16 ranks needs 16 microbatches and a layer per chunk at least: 2 chunks of 1
            Map.entry("llama3-405b-16k-h100", Map.of("cluster.nodes", 64, "parallelism.dp", 4,
                    "parallelism.accountForEmbeddingInPipelineSplit", "", "parallelism.accountForLossInPipelineSplit", "",
                    "schedule.v", 2, "model.layers", 32, "training.globalBatch", 64, "parallelism.gradBucketMB", 64)),
            Map.entry("deepseek-v3-like-2048xh100-pp16-ep64", Map.of("cluster.nodes", 32, "parallelism.pp", 4,
                    "parallelism.dp", 64, "parallelism.ep", 16, "parallelism.layersPerStage", "",
                    "model.layers", 8, "training.globalBatch", 512)),
            Map.entry("llama3-70b-gb200-nvl72-64gpu-fsdp-fp8cs", Map.of("model.layers", 8, "training.cpuOffloadLayers", 4)),
            Map.entry("llama3-70b-512xh100-tp8-pp4-cp2-fsdp", Map.of("model.layers", 8, "training.globalBatch", 32)),
            Map.entry("gpt3-175b-128xh100-tp8-pp8-dp2", Map.of("model.layers", 16, "training.globalBatch", 32)),
            Map.entry("llama31-70b-2048xh100-tp4-pp4-cp2-dp64", Map.of("model.layers", 20, "training.globalBatch", 512)),
            Map.entry("llama3-70b-tpu-v5p-512-fsdp64-tp8", Map.of("model.layers", 16)),
            Map.entry("llama3-8b-tpu-v5e-2x256-dcn", Map.of("model.layers", 8)),
            Map.entry("llama3-70b-tpu7x-4x4x4-fsdp128", Map.of("model.layers", 8)),
            Map.entry("llama3-8b-tpu-v5e-256-int8", Map.of("model.layers", 8)),
            Map.entry("llama3-8b-tpu-v6e-256-8k", Map.of("model.layers", 8)),
            Map.entry("validation/maxtext/v5p-32b-1x128", Map.of("model.layers", 8)),
            Map.entry("validation/maxtext/v5p-128b-1x256", Map.of("model.layers", 8)),
            Map.entry("validation/maxtext/v5p-256b-1x1024", Map.of("model.layers", 8)),
            Map.entry("validation/maxtext/v5p-512b-1x1024", Map.of("model.layers", 8)),
            Map.entry("validation/megatron-bridge/llama3-70b-64xh100-fp8-25.09", Map.of("model.layers", 40,
                    "training.globalBatch", 64)),
            Map.entry("validation/megatron-bridge/llama3-70b-64xh100-fp8cs-25.11", Map.of("model.layers", 40,
                    "training.globalBatch", 64)),
            Map.entry("validation/megatron-bridge/llama31-405b-1024xh100-fp8-25.09", Map.of("model.layers", 64,
                    "parallelism.layersPerStage", "", "training.globalBatch", 64)),
            Map.entry("validation/megatron-bridge/llama31-405b-1024xh100-fp8cs-25.11", Map.of("model.layers", 64,
                    "parallelism.layersPerStage", "", "training.globalBatch", 64)),
            Map.entry("validation/megatron-bridge/llama31-405b-128xb200-fp8cs-25.11", Map.of("model.layers", 64,
                    "parallelism.layersPerStage", "", "training.globalBatch", 32)),
            Map.entry("validation/megatron-bridge/llama31-405b-128xb200-fp8mx-25.11", Map.of("model.layers", 64,
                    "parallelism.accountForEmbeddingInPipelineSplit", "", "parallelism.accountForLossInPipelineSplit", "",
                    "training.globalBatch", 32)),
            Map.entry("validation/megatron-bridge/llama31-405b-256xgb300-mxfp8-26.04", Map.of("model.layers", 62,
                    "training.globalBatch", 128)),
            Map.entry("validation/megatron-bridge/deepseek-v3-256xb200-mxfp8-26.04", Map.of("training.globalBatch", 512)),
            Map.entry("validation/megatron-bridge/deepseek-v3-256xgb200-mxfp8-26.04", Map.of("training.globalBatch", 1024)),
            Map.entry("validation/megatron-sc21/gpt-1008b", Map.of("model.layers", 64, "training.globalBatch", 384)),
            Map.entry("validation/megatron-sc21/gpt-529.6b", Map.of("training.globalBatch", 315)),
            Map.entry("validation/megatron-sc21/gpt-310.1b", Map.of("training.globalBatch", 480)));

    /** MaxText's multi-slice rows: two slices of the same slice shape, the data-parallel batch per slice kept. */
    private static final int MAX_SLICES = 2;

    Path file() {
        return ROOT.resolve(name + ".yaml");
    }

    /** The scenario's tree with its reduction applied. */
    ObjectNode tree() {
        ObjectNode tree = StepRun.tree(this);
        reduction.forEach((path, value) -> StepRun.set(tree, path, "".equals(value) ? null : value));
        com.fasterxml.jackson.databind.JsonNode slices = StepRun.get(tree, "cluster.slices");
        if (name.startsWith("validation/maxtext/") && slices != null && slices.asInt() >= MAX_SLICES) {
            int s = slices.asInt();
            StepRun.set(tree, "cluster.slices", MAX_SLICES);
            StepRun.set(tree, "parallelism.mesh.dcn_data", MAX_SLICES);
            StepRun.set(tree, "training.globalBatch", StepRun.get(tree, "training.globalBatch").asInt() / s * MAX_SLICES);
            StepRun.set(tree, "model.layers", Math.min(8, StepRun.get(tree, "model.layers").asInt()));
        }
        return tree;
    }

    @Override
    public String toString() {
        return name;
    }

    /**
     * Rows left out of the suite to keep its time: each MaxText v5p one differs from a row that
     * stays (32B on 1 and 2 slices of v5p-128, 128B on v5p-256, 256B and 512B on v5p-1024) only in
     * the model's scale or the slice's size, with the same mesh axes, remat policies and block
     * shape; each Megatron-Bridge Blackwell one from a row that stays only in the chip (B200 for
     * GB200) or the recipe (MXFP8 for current scaling) or the offloaded layer count.
     */
    private static final java.util.Set<String> COVERED = java.util.Set.of(
            "validation/maxtext/v5p-64b-1x128", "validation/maxtext/v5p-64b-2x128",
            "validation/maxtext/v5p-128b-2x256", "validation/maxtext/v5p-128b-1x512",
            "validation/maxtext/v5p-128b-2x512", "validation/maxtext/v5p-256b-2x1024",
            "validation/maxtext/v5p-512b-2x1024", "validation/maxtext/v5p-1024b-1x2048",
            "validation/maxtext/v5p-1024b-2x2048", "validation/maxtext/v5p-1024b-1x4096",
            "validation/maxtext/v5p-1024b-2x4096",
            // Megatron-Bridge Blackwell twins of rows that stay: the same layout on another chip or recipe
            "validation/megatron-bridge/llama3-8b-8xb200-fp8cs-25.11",
            "validation/megatron-bridge/llama3-8b-8xgb200-fp8mx-25.11",
            "validation/megatron-bridge/llama3-70b-64xgb300-fp8cs-26.04",
            "validation/megatron-bridge/qwen3-30b-a3b-8xb200-mxfp8-26.04");

    /** Every bundled and validation scenario but the {@link #COVERED} ones, sorted by name. */
    static List<BundledScenario> all() {
        try (Stream<Path> files = Files.walk(ROOT)) {
            return files.filter(f -> f.toString().endsWith(".yaml"))
                    .filter(f -> !f.getParent().getFileName().toString().equals("pending"))
                    // shared-cluster files (a jobs list): SharedClusterCommandTest
                    .filter(f -> !f.getParent().getFileName().toString().equals("shared"))
                    .map(f -> ROOT.relativize(f).toString().replace('\\', '/').replaceAll("\\.yaml$", ""))
                    .filter(n -> !COVERED.contains(n))
                    .sorted()
                    .map(n -> new BundledScenario(n, REDUCTIONS.getOrDefault(n, Map.of())))
                    .toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
