package org.jrdma.bench;

import java.awt.BasicStroke;
import java.awt.Color;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.text.DecimalFormat;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.jfree.chart.ChartUtils;
import org.jfree.chart.JFreeChart;
import org.jfree.chart.axis.LogAxis;
import org.jfree.chart.axis.NumberAxis;
import org.jfree.chart.axis.NumberTickUnit;
import org.jfree.chart.axis.ValueAxis;
import org.jfree.chart.plot.XYPlot;
import org.jfree.chart.renderer.xy.XYLineAndShapeRenderer;
import org.jfree.data.xy.XYSeries;
import org.jfree.data.xy.XYSeriesCollection;

/**
 * compare-report's charts (JFreeChart, PNG): per test, the median over the rounds of every tool's
 * figure by message size on a logarithmic axis (one tick per power of two, padded around a single
 * size) — p50 (solid) and p99 (dashed) latency, or bandwidth, on a logarithmic axis too when the
 * figures span more than a decade. One colour per tool (perftest, perftest -e, then jrdma's columns),
 * from a palette that reads on white.
 */
final class CompareCharts {
    private static final List<String> COLUMNS = columns();
    /** Tableau's ten colours without the light ones: each readable on white. */
    static final Color[] PALETTE = {new Color(0x1f77b4), new Color(0xd62728), new Color(0x2ca02c),
        new Color(0xff7f0e), new Color(0x9467bd), new Color(0x8c564b), new Color(0xe377c2), new Color(0x7f7f7f)};

    private static List<String> columns() {
        List<String> columns = new ArrayList<>(List.of("perftest", "perftest-e"));
        columns.addAll(CompareReport.OURS);
        return columns;
    }

    private CompareCharts() {
    }

    /** Draws a chart per test that has figures; returns the files written. */
    static List<Path> draw(List<Map<String, Map<String, Double>>> rounds, Path dir) throws IOException {
        System.setProperty("java.awt.headless", "true"); // no display needed
        Files.createDirectories(dir);
        List<Path> written = new ArrayList<>();
        for (String test : BenchOptions.ALL_TESTS) {
            List<Integer> sizes = CompareReport.sizes(rounds, test);
            if (sizes.isEmpty()) {
                continue;
            }
            boolean latency = test.endsWith("_lat");
            XYSeriesCollection data = new XYSeriesCollection();
            List<Boolean> dashed = new ArrayList<>();
            List<Color> colours = new ArrayList<>();
            for (String column : COLUMNS) {
                for (String figure : latency ? List.of(column, column + CompareReport.P99) : List.of(column)) {
                    XYSeries series = new XYSeries(figure.endsWith(CompareReport.P99) ? figure : latency ? column + " p50" : column);
                    for (int size : sizes) {
                        Double value = CompareReport.median(rounds, test + " " + size, figure, null);
                        if (value != null) {
                            series.add(size, value);
                        }
                    }
                    if (series.getItemCount() > 0) {
                        data.addSeries(series);
                        dashed.add(figure.endsWith(CompareReport.P99));
                        colours.add(PALETTE[COLUMNS.indexOf(column) % PALETTE.length]);
                    }
                }
            }
            if (data.getSeriesCount() == 0) {
                continue;
            }
            LogAxis bytes = new LogAxis("message size [bytes]");
            bytes.setBase(2);
            bytes.setSmallestValue(1);
            // A power of two per tick, labelled as a number; a single size gets a range around it.
            int first = sizes.get(0);
            int last = sizes.get(sizes.size() - 1);
            bytes.setRange(first / 2.0, last * 2.0);
            double powers = Math.log(last * 4.0 / first) / Math.log(2);
            bytes.setTickUnit(new NumberTickUnit(powers > 14 ? 2 : 1));
            bytes.setNumberFormatOverride(new DecimalFormat("#,##0"));
            String label = latency ? (test.equals("read_lat") ? "round trip" : "one-way") + " latency [us]" : "bandwidth [MiB/s]";
            double span = span(data);
            ValueAxis value = span > 10 ? new LogAxis(label) : new NumberAxis(label);
            if (value instanceof LogAxis log) {
                // Over a few decades a labelled tick per decade; over less, one per power of two (else
                // only one or two ticks would be labelled).
                boolean decades = span > 300;
                log.setBase(decades ? 10 : 2);
                log.setTickUnit(new NumberTickUnit(1));
                log.setMinorTickCount(decades ? 9 : 1);
                log.setMinorTickMarksVisible(true);
                log.setNumberFormatOverride(new DecimalFormat("#,##0.#"));
            }
            XYLineAndShapeRenderer renderer = new XYLineAndShapeRenderer(true, true);
            for (int i = 0; i < colours.size(); i++) {
                renderer.setSeriesPaint(i, colours.get(i));
            }
            for (int i = 0; i < dashed.size(); i++) {
                if (dashed.get(i)) {
                    renderer.setSeriesStroke(i, new BasicStroke(1.5f, BasicStroke.CAP_BUTT, BasicStroke.JOIN_MITER, 10f,
                            new float[] {6f, 4f}, 0f));
                }
            }
            XYPlot plot = new XYPlot(data, bytes, value, renderer);
            plot.setBackgroundPaint(Color.WHITE);
            plot.setDomainGridlinePaint(Color.LIGHT_GRAY);
            plot.setRangeGridlinePaint(Color.LIGHT_GRAY);
            JFreeChart chart = new JFreeChart(rounds.size() == 1 ? test : test + " (medians over " + rounds.size() + " rounds)", JFreeChart.DEFAULT_TITLE_FONT,
                    plot, true);
            chart.setBackgroundPaint(Color.WHITE);
            Path file = dir.resolve(test + ".png");
            ChartUtils.saveChartAsPNG(file.toFile(), chart, 1000, 600);
            written.add(file);
        }
        return written;
    }

    /** The largest figure over the smallest: beyond 10 a logarithmic axis keeps the small ones readable. */
    static double span(XYSeriesCollection data) {
        double min = Double.MAX_VALUE;
        double max = 0;
        for (int s = 0; s < data.getSeriesCount(); s++) {
            for (int i = 0; i < data.getItemCount(s); i++) {
                double y = data.getYValue(s, i);
                if (y > 0) {
                    min = Math.min(min, y);
                    max = Math.max(max, y);
                }
            }
        }
        return max / min;
    }
}
