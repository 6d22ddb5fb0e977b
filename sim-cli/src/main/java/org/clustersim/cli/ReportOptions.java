package org.clustersim.cli;

import java.nio.file.Path;
import java.util.Map;
import java.util.function.Supplier;

import org.clustersim.cli.output.AtomicOutput;
import org.clustersim.cli.report.HtmlReport;
import org.clustersim.cli.report.PlotFiles;
import org.clustersim.cli.report.Report;

import picocli.CommandLine.Option;

/**
 * The {@code --report FILE.html} and {@code --plots DIR} options that {@code run}, {@code
 * whatif} and {@code report} share: where the HTML report and the static plots go. Both are
 * staged with the command's other outputs, so they appear all together or not at all.
 */
final class ReportOptions {
    @Option(names = "--report", paramLabel = "FILE.html",
            description = "Also write a self-contained HTML report (charts of step time, pipeline, memory, links); "
                    + "the run then records link throughput, which the trace shows too.")
    Path report;

    @Option(names = "--plots", paramLabel = "DIR", description = "Also write each chart of the report as DIR/NAME.svg "
            + "and DIR/NAME.png.")
    Path plots;

    /** Whether a report or plots were asked for (the run then records link throughput for the heat map). */
    boolean wanted() {
        return report != null || plots != null;
    }

    /** Adds the report and plot files to {@code files}, building the report once if either is wanted. */
    void stage(Map<Path, AtomicOutput.Content> files, Supplier<Report> build) {
        if (!wanted()) {
            return;
        }
        Report r = build.get();
        if (report != null) {
            files.put(report, out -> HtmlReport.write(r, out));
        }
        if (plots != null) {
            files.putAll(PlotFiles.of(r, plots));
        }
    }
}
