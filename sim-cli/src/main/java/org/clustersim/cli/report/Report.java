package org.clustersim.cli.report;

import java.util.ArrayList;
import java.util.List;

/**
 * What a report shows, independent of how it is written: a title and blocks in order. The
 * HTML page ({@link HtmlReport}) and the plot files ({@link PlotFiles}) are both written from it.
 *
 * @param title    page title
 * @param subtitle one line under it (scenario file, generator)
 * @param blocks   the content
 */
public record Report(String title, String subtitle, List<Block> blocks) {
    public Report {
        blocks = List.copyOf(blocks);
        List<String> ids = new ArrayList<>();
        for (Chart c : charts(blocks)) {
            if (!c.id().matches("[a-z0-9-]+") || ids.contains(c.id())) {
                throw new IllegalArgumentException("chart ids must be distinct and made of a-z, 0-9, '-': " + c.id());
            }
            ids.add(c.id());
        }
    }

    /** Every chart, in page order (columns left to right). */
    public List<Chart> charts() {
        return charts(blocks);
    }

    private static List<Chart> charts(List<Block> blocks) {
        List<Chart> out = new ArrayList<>();
        for (Block b : blocks) {
            if (b instanceof Block.Figure f) {
                out.add(f.chart());
            } else if (b instanceof Block.Columns c) {
                c.columns().forEach(col -> out.addAll(charts(col)));
            }
        }
        return out;
    }
}
