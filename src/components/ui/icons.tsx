import type { ReactNode, SVGProps } from "react";

type IconProps = SVGProps<SVGSVGElement>;

/** Shared frame for the app's few inline icons: 20×20, stroke-based, decorative by default. */
function Icon({ children, className, ...props }: IconProps) {
  return (
    <svg
      viewBox="0 0 20 20"
      fill="none"
      stroke="currentColor"
      strokeWidth={1.6}
      strokeLinecap="round"
      strokeLinejoin="round"
      aria-hidden="true"
      className={className ?? "size-4"}
      {...props}
    >
      {children}
    </svg>
  );
}

/** An icon component drawing `shape` in the shared frame; `frame` changes the frame's SVG attributes (a filled icon). */
function icon(shape: ReactNode, frame: IconProps = {}) {
  return function AppIcon(props: IconProps) {
    return (
      <Icon {...frame} {...props}>
        {shape}
      </Icon>
    );
  };
}

const FILLED: IconProps = { fill: "currentColor", stroke: "none" };

export const PlusIcon = icon(<path d="M10 4v12M4 10h12" />);

export const CloseIcon = icon(<path d="M5 5l10 10M15 5L5 15" />);

export const BellIcon = icon(
  <>
    <path d="M5.5 8a4.5 4.5 0 0 1 9 0c0 4 1.5 5.5 1.5 5.5H4S5.5 12 5.5 8Z" />
    <path d="M8.5 16a1.5 1.5 0 0 0 3 0" />
  </>,
);

/** Six dots: "grab here to move". */
export const GripIcon = icon(
  <>
    {[5, 10, 15].map((cy) => [7.5, 12.5].map((cx) => <circle key={`${cx}-${cy}`} cx={cx} cy={cy} r="1.3" />))}
  </>,
  FILLED,
);

export const ArrowUpIcon = icon(<path d="M10 15V5M5.5 9.5 10 5l4.5 4.5" />);

export const ThreadIcon = icon(<path d="M4 5.5A1.5 1.5 0 0 1 5.5 4h9A1.5 1.5 0 0 1 16 5.5v6a1.5 1.5 0 0 1-1.5 1.5H9l-3.5 3v-3h0A1.5 1.5 0 0 1 4 11.5v-6Z" />);

/** Two sliders: "settings". */
export const SlidersIcon = icon(
  <>
    <path d="M3 6h8M15 6h2M3 14h2M9 14h8" />
    <circle cx="13" cy="6" r="2" />
    <circle cx="7" cy="14" r="2" />
  </>,
);

export const PaperclipIcon = icon(<path d="M14.5 9.5l-5 5a3 3 0 01-4.2-4.2l6-6a2 2 0 012.8 2.8l-6 6a1 1 0 01-1.4-1.4l5-5" />);

/** The board's fold and unfold chevrons: filled, on a 16×16 grid. */
export const ChevronLeftIcon = icon(
  <path d="M9.78 4.22a.75.75 0 0 1 0 1.06L7.06 8l2.72 2.72a.75.75 0 1 1-1.06 1.06L5.47 8.53a.75.75 0 0 1 0-1.06l3.25-3.25a.75.75 0 0 1 1.06 0Z" />,
  { ...FILLED, viewBox: "0 0 16 16" },
);

export const ChevronRightIcon = icon(
  <path d="M6.22 4.22a.75.75 0 0 1 1.06 0l3.25 3.25a.75.75 0 0 1 0 1.06l-3.25 3.25a.75.75 0 0 1-1.06-1.06L8.94 8 6.22 5.28a.75.75 0 0 1 0-1.06Z" />,
  { ...FILLED, viewBox: "0 0 16 16" },
);
