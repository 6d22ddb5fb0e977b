package org.clustersim.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/**
 * The shared {@code --threads}, {@code --engine} and {@code --master} options keep each
 * command's own wording in {@code --help} (looked up under the command's qualified name, which
 * a renamed root command would silently lose), and the general wording where a command has none.
 */
class TaskEngineOptionsTest {
    private static String help(String command) {
        ClusterSimTest.Result r = ClusterSimTest.cli(command, "--help");
        assertEquals(0, r.code(), r.err());
        return r.out().replaceAll("\\s+", " ");
    }

    @Test
    void eachCommandDescribesItsOwnWork() {
        String whatif = help("whatif");
        assertTrue(whatif.contains("--threads=N Parallel simulations, at most 256 (default: all cores)."), whatif);
        assertTrue(whatif.contains("--engine=local|spark Where a sweep's variants run: local"), whatif);
        assertTrue(whatif.contains("--master=URL Spark master for --engine spark (default: what spark-submit set, "
                + "else local[*])."), whatif);

        String plan = help("plan");
        assertTrue(plan.contains("--threads=N Threads of the embedded pool (default: all cores)."), plan);
        assertTrue(plan.contains("--engine=local|spark Where candidates run: local"), plan);
        assertTrue(plan.contains("--master=URL Spark master: local[2], spark://host:7077, yarn, "), plan);

        String goodput = help("goodput");
        assertTrue(goodput.contains("--threads=N Threads for the replications (default: all cores)."), goodput);
        assertTrue(goodput.contains("--engine=local|spark Where replications run: local"), goodput);
        assertTrue(goodput.contains("--master=URL Spark master for --engine spark (default: what spark-submit "
                + "set, else local[*])."), goodput);
    }
}
