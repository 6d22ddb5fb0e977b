package org.clustersim.cli.output;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;

/**
 * A process for {@code AtomicOutputTest}: stages one file whose content never finishes, so the
 * test can send SIGTERM while a temporary file exists and check that the shutdown hook removes it.
 */
public final class StagingProbe {
    private StagingProbe() {
    }

    public static void main(String[] args) throws Exception {
        AtomicOutput out = new AtomicOutput();
        out.stage(Path.of(args[0]), o -> {
            o.write("partial".getBytes(StandardCharsets.UTF_8));
            o.flush();
            System.out.println("staging");
            System.out.flush();
            try {
                Thread.sleep(60_000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
    }
}
