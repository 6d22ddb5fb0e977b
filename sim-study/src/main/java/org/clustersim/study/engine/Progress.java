package org.clustersim.study.engine;

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
    private final AtomicInteger total;
    private final boolean terminal;
    private final String label;
    private final String unit;
    private final long startNs = System.nanoTime();
    private final AtomicInteger done = new AtomicInteger();
    private int lastTenth = -1;

    public Progress(PrintWriter err, int total, boolean terminal) {
        this(err, total, terminal, "whatif", "variants");
    }

    /**
     * @param label the command, starting each plain line ("plan")
     * @param unit  what is counted, plural ("candidates")
     */
    public Progress(PrintWriter err, int total, boolean terminal, String label, String unit) {
        this.err = err;
        this.total = new AtomicInteger(total);
        this.terminal = terminal;
        this.label = label;
        this.unit = unit;
    }

    /** {@code n} more pieces of work than announced (a search that learns its next wave). */
    public void add(int n) {
        total.addAndGet(n);
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
            int all = total.get();
            double eta = n == 0 ? 0 : elapsed / n * Math.max(0, all - n);
            if (terminal) {
                int width = 30;
                int filled = (int) ((long) width * Math.min(n, all) / Math.max(1, all));
                err.printf(Locale.ROOT, "\r[%s%s] %d/%d  elapsed %s  ETA %s ", "#".repeat(filled),
                        ".".repeat(width - filled), n, all, clock(elapsed), clock(eta));
                err.flush();
            } else {
                int tenth = (int) (10L * n / Math.max(1, all));
                if (tenth != lastTenth) {
                    lastTenth = tenth;
                    err.printf(Locale.ROOT, "%s: %d of %d %s done, %s elapsed, about %s left%n", label, n, all,
                            unit, clock(elapsed), clock(eta));
                    err.flush();
                }
            }
        }
    }

    /** Ends the bar's line. */
    public void finish() {
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
