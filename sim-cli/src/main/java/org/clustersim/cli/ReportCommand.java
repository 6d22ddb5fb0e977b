package org.clustersim.cli;

import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.Callable;

import org.clustersim.cli.output.AtomicOutput;
import org.clustersim.cli.report.HtmlReport;
import org.clustersim.cli.report.PlotFiles;
import org.clustersim.cli.report.Report;
import org.clustersim.cli.report.RunData;
import org.clustersim.cli.report.RunPage;
import org.clustersim.study.scenario.Scenario;
import org.clustersim.study.scenario.ScenarioReader;

import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code clustersim report SCENARIO}: simulates the scenario like {@code run} and writes only
 * the HTML report (and, with {@code --plots}, the charts as files): the quick way to look at a
 * layout. {@code run --report} gives the same page beside the trace and summaries.
 */
@Command(name = "report", mixinStandardHelpOptions = true,
        description = "Simulate a scenario and write a self-contained HTML report with charts (and static plots).")
public final class ReportCommand implements Callable<Integer> {
    @Parameters(index = "0", paramLabel = "SCENARIO", description = "Scenario file (.yaml, .yml or .json).")
    Path scenarioFile;

    @Option(names = {"-o", "--output"}, paramLabel = "FILE.html",
            description = "Where the report goes (default: reports/<scenario name>.html).")
    Path output;

    @Option(names = "--plots", paramLabel = "DIR", description = "Also write each chart as DIR/NAME.svg and DIR/NAME.png.")
    Path plots;

    @Option(names = "--allow-oom", description = "Report, but do not fail on, GPUs whose peak memory exceeds HBM.")
    boolean allowOom;

    @Spec
    CommandSpec spec;

    @Override
    public Integer call() {
        Scenario scenario = new ScenarioReader().read(scenarioFile);
        Path html = output != null ? output : Path.of("reports", scenario.name() + ".html");
        RunCommand.Simulated sim = RunCommand.simulate(scenario, allowOom, true);
        Report report = RunPage.report(RunData.of(scenario, sim.step(), sim.run(), sim.summary()),
                "clustersim " + Version.current());
        Map<Path, AtomicOutput.Content> files = new LinkedHashMap<>();
        files.put(html, out -> HtmlReport.write(report, out));
        if (plots != null) {
            files.putAll(PlotFiles.of(report, plots));
        }
        OutputFiles.write(files);
        var out = spec.commandLine().getOut();
        out.printf(java.util.Locale.ROOT, "%s: step time %s, simulated in %.2f s%n", scenario.name(),
                org.clustersim.cli.report.Axis.DURATION_NS.format(sim.summary().stepTimeNs()), sim.wallSeconds());
        out.printf("report     %s%n", html);
        if (plots != null) {
            out.printf("plots      %s (one .svg and one .png per chart)%n", plots);
        }
        out.flush();
        return 0;
    }
}
