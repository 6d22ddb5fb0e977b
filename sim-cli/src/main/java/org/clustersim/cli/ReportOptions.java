package org.clustersim.cli;

import java.nio.file.Path;
import java.util.Map;
import java.util.function.Supplier;

import org.clustersim.cli.output.AtomicOutput;
import org.clustersim.cli.report.HtmlReport;
import org.clustersim.cli.report.PlotFiles;
import org.clustersim.cli.report.Report;
import org.clustersim.study.scenario.Scenario;
import org.clustersim.core.engine.Timeline;
import org.clustersim.core.network.LinkUsage;

import picocli.CommandLine.Option;

/**
 * The {@code --report FILE.html} and {@code --plots DIR} options that {@code run}, {@code
 * whatif} and {@code report} share: where the HTML report and the static plots go. Both are
 * staged with the command's other outputs, so they appear all together or not at all.
 */
final class ReportOptions {
    @Option(names = "--report", paramLabel = "FILE.html",
            description = "Also write a self-contained HTML report (charts of step time, pipeline, memory, links).")
    Path report;

    @Option(names = "--plots", paramLabel = "DIR", description = "Also write each chart of the report as DIR/NAME.svg "
            + "and DIR/NAME.png.")
    Path plots;

    /** Whether a report or plots were asked for (the run then records link throughput for the heat map). */
    boolean wanted() {
        return report != null || plots != null;
    }

    /**
     * Adds the report and plot files to {@code files}, building the report now if either is
     * wanted. The runs recorded link throughput for the heat map; unless the scenario asks for
     * those tracks ({@code output.linkCounters}), they are then dropped from {@code timelines}, so
     * the traces written afterwards are the same with or without a report.
     */
    void stage(Map<Path, AtomicOutput.Content> files, Supplier<Report> build, Scenario scenario,
               Timeline... timelines) {
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
        if (!scenario.output().linkCounters()) {
            for (Timeline t : timelines) {
                t.counters().discard(name -> name.startsWith(LinkUsage.TRACK_PREFIX));
            }
        }
    }
}
