package org.clustersim.cli.whatif;

import java.io.PrintWriter;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Progress of a sweep: on a terminal a bar redrawn in place with the count and an ETA from
 * the mean time per variant so far; otherwise (CI logs, pipes) a plain line at every tenth of
 * the work. Written to the error stream so the report on standard output stays clean.
 */
public final class Progress {
    private final PrintWriter err;
    private final int total;
    private final boolean terminal;
    private final long startNs = System.nanoTime();
    private final AtomicInteger done = new AtomicInteger();
    private int lastTenth = -1;

    public Progress(PrintWriter err, int total, boolean terminal) {
        this.err = err;
        this.total = total;
        this.terminal = terminal;
    }

    /** No output at all. */
    public static Progress silent() {
        return new Progress(null, 0, false);
    }

    /** One variant finished (called from worker threads). */
    public void done() {
        int n = done.incrementAndGet();
        if (err == null) {
            return;
        }
        synchronized (this) {
            double elapsed = (System.nanoTime() - startNs) / 1e9;
            double eta = n == 0 ? 0 : elapsed / n * (total - n);
            if (terminal) {
                int width = 30;
                int filled = (int) ((long) width * n / Math.max(1, total));
                err.printf(Locale.ROOT, "\r[%s%s] %d/%d  elapsed %s  ETA %s ", "#".repeat(filled),
                        ".".repeat(width - filled), n, total, clock(elapsed), clock(eta));
                err.flush();
            } else {
                int tenth = (int) (10L * n / Math.max(1, total));
                if (tenth != lastTenth) {
                    lastTenth = tenth;
                    err.printf(Locale.ROOT, "whatif: %d of %d variants done, %s elapsed, about %s left%n", n, total,
                            clock(elapsed), clock(eta));
                    err.flush();
                }
            }
        }
    }

    /** Ends the bar's line. */
    void finish() {
        if (err != null && terminal) {
            err.println();
            err.flush();
        }
    }

    static String clock(double seconds) {
        long s = Math.round(seconds);
        return s >= 60 ? String.format(Locale.ROOT, "%dm%02ds", s / 60, s % 60) : s + "s";
    }
}
