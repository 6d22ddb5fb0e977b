package org.clustersim.spark;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import org.clustersim.cli.ClusterSim;

/**
 * The same small plan search on the embedded pool and on Spark in local mode: byte for byte the
 * same files and the same printed report (Spark runs each candidate as its own task, on two
 * worker threads, in whatever order they finish).
 */
class SparkPlanTest {
    private static final String[] SEARCH = {"plan", "--model", "gpt3-1.3b", "--cluster", "dgx-h100", "--nodes", "1",
        "--global-batch", "16", "--seq", "1024", "--tp", "1,2,4", "--pp", "1,2", "--cp", "1", "--mb", "1",
        "--recompute", "selective", "--schedule", "1f1b", "--top", "2", "--simulate", "2", "--space", "narrow"};
    /** sim-cli's two-SU test scenario. */
    private static final String TWO_SU = Path.of("..", "sim-study", "src", "test", "resources", "whatif-2su.yaml")
            .toString();

    @Test
    void sparkLocalModeGivesTheEmbeddedPoolsResultsByteForByte(@TempDir Path dir) throws IOException {
        Path pool = dir.resolve("pool");
        Path spark = dir.resolve("spark");
        String poolOut = run(pool, "--threads", "1");
        String sparkOut = run(spark, "--engine", "spark", "--master", "local[2]");
        assertEquals(poolOut.replace(pool.toString(), "OUT"), sparkOut.replace(spark.toString(), "OUT"));
        List<Path> files = list(pool);
        assertEquals(3, files.size(), files.toString());
        assertEquals(files.stream().map(Path::getFileName).toList(), list(spark).stream().map(Path::getFileName)
                .toList());
        for (Path f : files) {
            byte[] a = Files.readAllBytes(f);
            byte[] b = Files.readAllBytes(spark.resolve(f.getFileName()));
            if (f.toString().endsWith(".json")) {
                // the JSON names the winner's file, which lies in each run's own folder
                a = new String(a).replace(pool.toString(), "OUT").getBytes();
                b = new String(b).replace(spark.toString(), "OUT").getBytes();
            }
            assertArrayEquals(a, b, f.getFileName().toString());
        }
        assertTrue(poolOut.contains("rank") && poolOut.contains("winner"), poolOut);
    }

    @Test
    void aSweepAndGoodputReplicationsOnSparkMatchThePool(@TempDir Path dir) throws IOException {
        // the sweep's workers rebuild the study from the scenario's text: Spark serialises every task
        String[] sweep = {"whatif", TWO_SU, "--sweep", "links=leaf-spine", "--sample", "3", "--no-trace"};
        Path poolSweep = dir.resolve("pool-sweep.json");
        Path sparkSweep = dir.resolve("spark-sweep.json");
        cli(sweep, "--threads", "1", "--json", poolSweep.toString());
        cli(sweep, "--engine", "spark", "--master", "local[2]", "--json", sparkSweep.toString());
        assertArrayEquals(Files.readAllBytes(poolSweep), Files.readAllBytes(sparkSweep));
        String[] goodput = {"goodput", TWO_SU, "--days", "10", "--checkpoint-every", "optimal", "--replications", "6"};
        Path poolGoodput = dir.resolve("pool-goodput.json");
        Path sparkGoodput = dir.resolve("spark-goodput.json");
        String a = cli(goodput, "--threads", "2", "--json", poolGoodput.toString());
        String b = cli(goodput, "--engine", "spark", "--master", "local[2]", "--json", sparkGoodput.toString());
        assertEquals(a, b);
        assertArrayEquals(Files.readAllBytes(poolGoodput), Files.readAllBytes(sparkGoodput));
    }

    private static String cli(String[] base, String... extra) {
        String[] args = Stream.concat(Stream.of(base), Stream.of(extra)).toArray(String[]::new);
        StringWriter text = new StringWriter();
        StringWriter err = new StringWriter();
        int code = ClusterSim.execute(args, new PrintWriter(text), new PrintWriter(err));
        assertEquals(0, code, err.toString());
        return text.toString();
    }

    private static String run(Path out, String... extra) {
        String[] args = Stream.concat(Stream.of(SEARCH), Stream.concat(Stream.of(extra),
                Stream.of("--out", out.toString()))).toArray(String[]::new);
        StringWriter text = new StringWriter();
        StringWriter err = new StringWriter();
        int code = ClusterSim.execute(args, new PrintWriter(text), new PrintWriter(err));
        assertEquals(0, code, err.toString());
        return text.toString();
    }

    private static List<Path> list(Path dir) throws IOException {
        try (Stream<Path> s = Files.list(dir)) {
            return s.sorted().toList();
        }
    }
}
