package org.clustersim.study.scenario;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

import org.clustersim.core.input.InputFileException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class WorkloadScenarioReaderTest {
    @TempDir
    Path tmp;

    private Path file(String text) throws IOException {
        Path f = tmp.resolve("w.yaml");
        Files.writeString(f, text);
        return f;
    }

    @Test
    void readsTheWorkloadSectionAndTheCluster() throws IOException {
        Path f = file("name: traced\ncluster:\n  preset: dgx-h100\n  nodes: 2\nworkload:\n  chakraTrace: et/job.*.et\n"
                + "  durationScale: 0.5\n  collectiveAlgorithm: ring\n  ranks: 16\n");
        WorkloadScenarioReader reader = new WorkloadScenarioReader();
        assertTrue(reader.isWorkload(f));
        WorkloadScenario s = reader.read(f);
        assertEquals("traced", s.name());
        assertEquals(16, s.cluster().build().deviceCount());
        assertEquals("et/job.*.et", s.chakraTrace());
        assertEquals(0.5, s.durationScale());
        assertEquals("ring", s.collectiveAlgorithm());
        assertEquals(16, s.ranks());
        assertFalse(s.byDuration(), "num_ops where given, by default");
        assertTrue(reader.read(file("cluster:\n  preset: dgx-h100\nworkload:\n  chakraTrace: et\n"
                + "  computeFrom: duration\n")).byDuration());
        assertEquals(tmp.toAbsolutePath(), s.base());
        assertFalse(reader.isWorkload(file("cluster:\n  preset: dgx-h100\n")));
    }

    @Test
    void everyErrorIsListedWithItsLineAndField() throws IOException {
        Path f = file("cluster:\n  preset: dgx-h100\nworkload:\n  durationScale: 0\n  rnaks: 3\n"
                + "  computeFrom: flop\n");
        String m = assertThrows(InputFileException.class, () -> new WorkloadScenarioReader().read(f)).getMessage();
        assertTrue(m.contains("workload.chakraTrace: missing"), m);
        assertTrue(m.contains(":4:") && m.contains("workload.durationScale"), m);
        assertTrue(m.contains(":5:") && m.contains("workload.rnaks"), m);
        assertTrue(m.contains(":6:") && m.contains("workload.computeFrom: found 'flop', expected flops"), m);
    }
}
