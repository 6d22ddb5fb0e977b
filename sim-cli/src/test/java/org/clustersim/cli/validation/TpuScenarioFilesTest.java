package org.clustersim.cli.validation;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;

import org.clustersim.study.scenario.Scenario;
import org.clustersim.study.scenario.ScenarioReader;
import org.clustersim.topology.TorusSpec;
import org.junit.jupiter.api.Test;

/**
 * The bundled TPU scenarios read, and lay out what their comments say: MaxText's rows with the
 * published per-device batch, FSDP over a slice and one data-parallel replica per slice.
 */
class TpuScenarioFilesTest {
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
        assertEquals(4 + 24 + 6, files.size(), files.toString());
        for (Path f : files) {
            Scenario s = new ScenarioReader().read(f);
            TorusSpec torus = (TorusSpec) s.cluster();
            assertEquals(torus.gpus(), s.parallelism().gpus(), f.toString());
            String name = f.getFileName().toString();
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
        }
    }
}
