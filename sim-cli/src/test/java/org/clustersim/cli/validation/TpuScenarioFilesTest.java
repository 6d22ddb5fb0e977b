package org.clustersim.cli.validation;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;

import org.clustersim.strategies.device.AttentionImpl;
import org.clustersim.study.scenario.Scenario;
import org.clustersim.strategies.cost.RecomputeModule;
import org.clustersim.study.scenario.ScenarioReader;
import org.clustersim.topology.TorusSpec;
import org.junit.jupiter.api.Test;

/**
 * The bundled TPU scenarios read, and lay out what their comments say: MaxText's rows with the
 * published per-device batch, FSDP over a slice and one data-parallel replica per slice.
 */
class TpuScenarioFilesTest {
    /**
     * One v5p row's published run (AI-Hypercomputer/maxtext@76bd53b0f, MaxText/configs/v5p/{32b..1024b}.sh
     * and README.md): global_parameter_scale, per_device_batch_size, ici_tensor_parallelism (ici_fsdp
     * = -1 fills the slice), v5p-N (N TensorCores, N / 2 chips), slices, remat_policy.
     */
    private record V5pRun(int scale, int perDeviceBatch, int tensor, int cores, int slices, String remat) {
    }

    private static final Map<String, V5pRun> V5P = Map.ofEntries(
            Map.entry("v5p-32b-1x128.yaml", new V5pRun(32, 8, 4, 128, 1, "minimal")),
            Map.entry("v5p-32b-2x128.yaml", new V5pRun(32, 8, 4, 128, 2, "minimal")),
            Map.entry("v5p-64b-1x128.yaml", new V5pRun(64, 4, 4, 128, 1, "minimal")),
            Map.entry("v5p-64b-2x128.yaml", new V5pRun(64, 4, 4, 128, 2, "minimal")),
            Map.entry("v5p-128b-1x256.yaml", new V5pRun(128, 2, 8, 256, 1, "minimal")),
            Map.entry("v5p-128b-2x256.yaml", new V5pRun(128, 2, 8, 256, 2, "minimal")),
            Map.entry("v5p-128b-1x512.yaml", new V5pRun(128, 2, 8, 512, 1, "minimal")),
            Map.entry("v5p-128b-2x512.yaml", new V5pRun(128, 2, 8, 512, 2, "minimal")),
            Map.entry("v5p-256b-1x1024.yaml", new V5pRun(256, 2, 8, 1024, 1, "minimal")),
            Map.entry("v5p-256b-2x1024.yaml", new V5pRun(256, 2, 8, 1024, 2, "minimal")),
            Map.entry("v5p-512b-1x1024.yaml", new V5pRun(512, 2, 16, 1024, 1, "full")),
            Map.entry("v5p-512b-2x1024.yaml", new V5pRun(512, 2, 16, 1024, 2, "full")),
            Map.entry("v5p-1024b-1x2048.yaml", new V5pRun(1024, 2, 16, 2048, 1, "full")),
            Map.entry("v5p-1024b-2x2048.yaml", new V5pRun(1024, 2, 16, 2048, 2, "full")),
            Map.entry("v5p-1024b-1x4096.yaml", new V5pRun(1024, 2, 16, 4096, 1, "full")),
            Map.entry("v5p-1024b-2x4096.yaml", new V5pRun(1024, 2, 16, 4096, 2, "full")));

    private static List<Path> files() throws IOException {
        try (Stream<Path> validation = Files.list(Path.of("..", "scenarios", "validation", "maxtext"));
             Stream<Path> top = Files.list(Path.of("..", "scenarios"))) {
            return Stream.concat(validation, top.filter(p -> p.getFileName().toString().contains("tpu")))
                    .filter(p -> p.toString().endsWith(".yaml")).sorted().toList();
        }
    }

    @Test
    void everyTpuScenarioReadsAndItsMeshFillsItsSlices() throws IOException {
        List<Path> files = files();
        assertEquals(5 + 24 + 6 + V5P.size(), files.size(), files.toString());
        for (Path f : files) {
            Scenario s = new ScenarioReader().read(f);
            TorusSpec torus = (TorusSpec) s.cluster();
            assertEquals(torus.gpus(), s.parallelism().gpus(), f.toString());
            String name = f.getFileName().toString();
            // MaxText's v5e table ran a Pallas flash kernel (enable_flash_attention), its v4 table
            // (April 2023) plain dot-product attention
            if (name.startsWith("v5e-")) {
                assertEquals(AttentionImpl.SPLASH, s.attention(), name);
            } else if (name.startsWith("v4-")) {
                assertEquals(AttentionImpl.STANDARD, s.attention(), name);
            }
            if (name.startsWith("v5e-")) {
                int slices = Integer.parseInt(name.substring(name.lastIndexOf('-') + 1, name.indexOf('x')));
                assertEquals(slices, torus.slices(), name);
                assertEquals(256, torus.chipsPerSlice(), name);
                int perDevice = Integer.parseInt(s.model().name().equals("maxtext-16b") ? "6"
                        : s.model().name().equals("maxtext-32b") ? "4" : s.model().name().equals("maxtext-64b")
                        ? "2" : "1");
                assertEquals(perDevice * torus.gpus(), s.training().globalBatch(), name + ": per_device_batch_size");
                assertEquals(2048, s.training().seqLen(), name);
                assertEquals(Scenario.Recompute.FULL, s.training().recompute(), name);
                assertTrue(s.parallelism().layout().zero().shardGroup() == 0 || s.parallelism().layout().zero().shardGroup() * slices
                        == s.parallelism().layout().mesh().dp(), name + ": FSDP inside a slice, data parallel across");
            }
            if (name.startsWith("v5p-")) {
                V5pRun run = V5P.get(name);
                assertTrue(run != null, name + ": a v5p row not in the published table");
                assertV5pRow(name, s, torus, run);
            }
        }
    }

    /**
     * A v5p row as published: the synthetic model of its scale on the base model of the time (emb
     * 2560, 8 heads of 256, mlp 8192, 16 layers; pyconfig.get_individual_scales at 76bd53b0f), the
     * per-chip batch, tensor x FSDP filling a slice, data parallel across slices with one
     * microbatch a step, and the remat policy.
     */
    private static void assertV5pRow(String name, Scenario s, TorusSpec torus, V5pRun run) {
        int chips = run.cores() / 2;
        assertEquals(run.slices(), torus.slices(), name);
        assertEquals(chips, torus.chipsPerSlice(), name + ": v5p-N counts TensorCores, two per chip");
        int log2 = Integer.numberOfTrailingZeros(run.scale());
        int base = log2 / 3;
        int rem = log2 % 3;
        int headScale = base + (rem > 0 ? 1 : 0);
        int embScale = base + (rem > 1 ? 1 : 0);
        assertEquals(2560 << embScale, s.model().hidden(), name + ": emb");
        assertEquals(8 << headScale, s.model().heads(), name + ": heads");
        assertEquals(8 << headScale, s.model().kvHeads(), name + ": multi-head attention");
        assertEquals(256, s.model().headDim(), name + ": head_dim");
        assertEquals(8192 << headScale, s.model().ffn(), name + ": mlp");
        assertEquals(16 << base, s.model().layers(), name + ": layers");
        assertEquals(32768, s.model().vocab(), name);
        assertTrue(s.model().tiedEmbeddings(), name + ": logits_via_embedding");
        int gpus = chips * run.slices();
        assertEquals(run.perDeviceBatch() * gpus, s.training().globalBatch(), name + ": per_device_batch_size");
        assertEquals(2048, s.training().seqLen(), name);
        var mesh = s.parallelism().layout().mesh();
        int fsdp = chips / run.tensor();
        assertEquals(run.tensor(), mesh.tp(), name + ": ici_tensor_parallelism");
        assertEquals(fsdp * run.slices(), mesh.dp(), name + ": ici_fsdp over the rest of a slice, dcn_data = slices");
        assertEquals(1, mesh.pp(), name);
        assertEquals(3, s.parallelism().layout().zero().stage(), name + ": FSDP shards the model states");
        int shardGroup = s.parallelism().layout().zero().shardGroup();
        assertTrue(shardGroup == 0 && run.slices() == 1 || shardGroup == fsdp,
                name + ": FSDP inside a slice, data parallel across");
        assertEquals(s.training().globalBatch(), s.training().microBatch() * mesh.dp(),
                name + ": one microbatch a step (no gradient accumulation)");
        if (run.remat().equals("full")) {
            assertEquals(Scenario.Recompute.FULL, s.training().recompute(), name);
        } else {
            assertEquals(Scenario.Recompute.SELECTIVE, s.training().recompute(), name + ": remat minimal");
            assertEquals(Set.of(RecomputeModule.CORE_ATTN), Set.copyOf(s.training().recomputeModules()),
                    name + ": minimal recomputes only attention's dots");
        }
    }
}
