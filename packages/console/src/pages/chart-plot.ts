import uPlot from 'uplot';
// Bundled (a stylesheet of this origin, loaded with this chunk): the console's CSP allows no inline style.
// uPlot itself only sets element.style properties (CSSOM), which the CSP does not restrict.
import 'uplot/dist/uPlot.min.css';

/** One chart: lines over the series' time steps (seconds). */
export interface ChartSpec {
  title: string;
  x: number[];
  lines: Array<{ label: string; color: string; values: Array<number | null> }>;
  /** `ms`: a log2 y axis in milliseconds (the percentiles are log2 bucket bounds); `runs`: a linear count from 0. */
  unit: 'ms' | 'runs';
}

const HEIGHT = 200;
const MIN_WIDTH = 280;

/** A duration in ms as a short label: 512 ms, 4.1 s, 2.2 min, 1.2 h. */
export function shortMs(ms: number): string {
  if (ms < 1000) return `${ms} ms`;
  if (ms < 60_000) return `${+(ms / 1000).toFixed(1)} s`;
  if (ms < 3_600_000) return `${+(ms / 60_000).toFixed(1)} min`;
  return `${+(ms / 3_600_000).toFixed(1)} h`;
}

/** Draws `spec` into `el` (sized to its width, following resizes); returns what removes it. */
export function draw(el: HTMLElement, spec: ChartSpec): () => void {
  const width = () => Math.max(MIN_WIDTH, el.clientWidth);
  const y: uPlot.Scale =
    spec.unit === 'ms'
      ? { distr: 3, log: 2, range: (_u, min, max) => uPlot.rangeLog(min ?? 1, Math.max(max ?? 2, 2), 2, true) }
      : { range: (_u, _min, max) => [0, Math.max(1, max ?? 1)] };
  const opts: uPlot.Options = {
    title: spec.title,
    width: width(),
    height: HEIGHT,
    scales: { x: { time: true }, y },
    // Points shown: a minute with data between empty ones (a null breaks the line) still reads.
    series: [{}, ...spec.lines.map((l) => ({ label: l.label, stroke: l.color, width: 2, points: { show: true, size: 5, fill: l.color } }))],
    axes: [
      { space: 80 },
      spec.unit === 'ms'
        ? { size: 64, values: (_u: uPlot, splits: number[]) => splits.map((v) => (v == null ? '' : shortMs(v))) }
        : { size: 48, values: (_u: uPlot, splits: number[]) => splits.map((v) => (Number.isInteger(v) ? String(v) : '')) },
    ],
    legend: { show: true },
  };
  const plot = new uPlot(opts, [spec.x, ...spec.lines.map((l) => l.values)] as uPlot.AlignedData, el);
  const resize = new ResizeObserver(() => {
    if (width() !== plot.width) plot.setSize({ width: width(), height: HEIGHT });
  });
  resize.observe(el);
  return () => {
    resize.disconnect();
    plot.destroy();
  };
}
