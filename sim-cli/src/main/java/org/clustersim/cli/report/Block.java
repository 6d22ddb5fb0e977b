package org.clustersim.cli.report;

import java.util.List;

/**
 * A piece of a {@link Report}: headings, text, tables, figures, and columns that put two runs
 * (a what-if baseline and its variant) side by side. Commands assemble reports from these; a
 * new page (a plan's ranking and Pareto front) is a new list of blocks, not a new writer.
 */
public sealed interface Block permits Block.Heading, Block.Paragraph, Block.Table, Block.Figure, Block.Columns {

    /** A section title; {@code level} 2 or 3. */
    record Heading(String text, int level) implements Block {
    }

    /** A paragraph of plain text. */
    record Paragraph(String text) implements Block {
    }

    /**
     * A table of text cells; {@code numeric} columns are right-aligned.
     *
     * @param id      element id (for the browser test and links)
     * @param header  column names
     * @param numeric per column, whether it holds numbers
     * @param rows    the cells, row by row, each as long as the header
     */
    record Table(String id, List<String> header, List<Boolean> numeric, List<List<String>> rows) implements Block {
        public Table {
            header = List.copyOf(header);
            numeric = List.copyOf(numeric);
            rows = rows.stream().map(List::copyOf).toList();
            for (List<String> r : rows) {
                if (r.size() != header.size()) {
                    throw new IllegalArgumentException("table " + id + ": row of " + r.size() + " cells under "
                            + header.size() + " columns");
                }
            }
        }
    }

    /** A chart with its title and caption. */
    record Figure(Chart chart) implements Block {
    }

    /** Columns of blocks shown next to each other, each with a title. */
    record Columns(List<String> titles, List<List<Block>> columns) implements Block {
        public Columns {
            titles = List.copyOf(titles);
            columns = columns.stream().map(List::copyOf).toList();
        }
    }
}
