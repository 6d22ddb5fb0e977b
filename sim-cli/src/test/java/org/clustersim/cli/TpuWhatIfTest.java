package org.clustersim.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A TPU slice under link faults: a dead ICI link is routed around (dimension order, then the
 * other orders, then a detour), and {@code whatif --sweep links=ici} ranks every ICI cable by the
 * step time it costs.
 */
class TpuWhatIfTest {
    @TempDir
    Path dir;

    private Path scenario() throws IOException {
        Path p = dir.resolve("tpu.yaml");
        Files.writeString(p, SmallDenseModel.TPU_SLICE);
        return p;
    }

    @Test
    void everyIciCableIsRankedAndEachOneLostSlowsTheStep() throws IOException {
        Path csv = dir.resolve("ici.csv");
        ClusterSimTest.Result r = ClusterSimTest.cli("whatif", scenario().toString(), "--sweep", "links=ici",
                "--csv", csv.toString(), "--threads", "1");
        assertEquals(0, r.code(), r.err());
        List<String> rows = Files.readAllLines(csv);
        // a 4x4 v5e slice does not wrap: 2 axes x 4 lines x 3 cables, none of them cuts the slice apart
        assertEquals(1 + 24, rows.size(), rows.toString());
        double previous = Double.MAX_VALUE;
        for (String row : rows.subList(1, rows.size())) {
            String[] f = row.split(",", -1);
            assertEquals("ici", f[2], row);
            assertTrue(f[7].isEmpty(), "routed around, not cut apart: " + row);
            double slowdown = Double.parseDouble(f[4]);
            // every ring of an unwrapped line crosses every cable of it; without one, its flows detour
            // over the other axis's links (TorusRouter: other dimension orders, then fewest hops)
            assertTrue(slowdown > 1.02, row);
            assertTrue(slowdown <= previous, "ranked by damage: " + rows);
            previous = slowdown;
        }
        assertTrue(r.out().contains("ici") && r.out().contains("24"), r.out());
    }
}
