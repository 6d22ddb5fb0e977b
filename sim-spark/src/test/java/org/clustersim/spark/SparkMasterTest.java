package org.clustersim.spark;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Path;

import org.junit.jupiter.api.Test;

import org.clustersim.cli.ClusterSim;
import org.clustersim.core.input.InputException;

/**
 * A master Spark cannot use is one line and exit code 2 before Spark starts: an unknown host, a
 * port nothing listens on, zero local threads (issue 34, item 8). Spark's own path was a minute of
 * retries and a stack trace, or a stack trace and exit 1.
 */
class SparkMasterTest {
    private static final String TWO_SU = Path.of("..", "sim-study", "src", "test", "resources", "whatif-2su.yaml")
            .toString();

    private static String refused(String master) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        long start = System.nanoTime();
        int code = ClusterSim.execute(new String[] {"whatif", TWO_SU, "--sweep", "links=leaf-spine", "--sample", "2",
            "--no-trace", "--engine=spark", "--master=" + master}, new PrintWriter(out), new PrintWriter(err));
        double seconds = (System.nanoTime() - start) / 1e9;
        String text = err.toString();
        assertEquals(2, code, text);
        assertEquals(1, text.lines().count(), text);
        assertTrue(text.startsWith("error: --master " + master + ": "), text);
        assertFalse(text.contains("Exception") || text.contains("\tat "), text);
        // generous against a loaded machine; Spark's own give-up took 64 s
        assertTrue(seconds < 30, master + " took " + seconds + " s");
        return text;
    }

    @Test
    void anUnknownHostIsNamed() {
        String err = refused("spark://nonexistent.invalid:7077");
        assertTrue(err.contains("no such host nonexistent.invalid") || err.contains("did not resolve"), err);
    }

    @Test
    void aPortNothingListensOnIsNamed() {
        String err = refused("spark://127.0.0.1:1");
        assertTrue(err.contains("nothing accepts connections at 127.0.0.1:1"), err);
    }

    @Test
    void zeroLocalThreadsAndUnknownFormsAreRefusedBeforeSparkStarts() {
        assertTrue(refused("local[0]").contains("0 threads; expected a count from 1"));
        assertTrue(refused("local[2,0]").contains("0 task attempts"));
        assertTrue(refused("local[two]").contains("expected local, local[N]"));
        assertTrue(refused("spark://masterhost").contains("is not HOST:PORT"));
        assertTrue(refused("spark://masterhost:70000").contains("port 70000"));
        assertTrue(refused("mars").contains("expected local, local[N]"));
    }

    @Test
    void aListeningMasterPassesAndTheSamePortClosedDoesNot() throws IOException {
        int port;
        try (ServerSocket server = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            port = server.getLocalPort();
            new SparkMaster("spark://127.0.0.1:" + port).check();
            new SparkMaster("spark://127.0.0.1:1,127.0.0.1:" + port).check(); // one live master of two is enough
        }
        int closed = port;
        InputException e = assertThrows(InputException.class,
                () -> new SparkMaster("spark://127.0.0.1:" + closed).check());
        assertTrue(e.getMessage().contains("connection refused"), e.getMessage());
    }
}
