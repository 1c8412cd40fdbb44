import type { SVGProps } from "react";

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

export function PlusIcon(props: IconProps) {
  return (
    <Icon {...props}>
      <path d="M10 4v12M4 10h12" />
    </Icon>
  );
}

export function CloseIcon(props: IconProps) {
  return (
    <Icon {...props}>
      <path d="M5 5l10 10M15 5L5 15" />
    </Icon>
  );
}

export function BellIcon(props: IconProps) {
  return (
    <Icon {...props}>
      <path d="M5.5 8a4.5 4.5 0 0 1 9 0c0 4 1.5 5.5 1.5 5.5H4S5.5 12 5.5 8Z" />
      <path d="M8.5 16a1.5 1.5 0 0 0 3 0" />
    </Icon>
  );
}

/** Six dots: "grab here to move". */
export function GripIcon(props: IconProps) {
  return (
    <Icon {...props} fill="currentColor" stroke="none">
      <circle cx="7.5" cy="5" r="1.3" />
      <circle cx="12.5" cy="5" r="1.3" />
      <circle cx="7.5" cy="10" r="1.3" />
      <circle cx="12.5" cy="10" r="1.3" />
      <circle cx="7.5" cy="15" r="1.3" />
      <circle cx="12.5" cy="15" r="1.3" />
    </Icon>
  );
}

export function ArrowUpIcon(props: IconProps) {
  return (
    <Icon {...props}>
      <path d="M10 15V5M5.5 9.5 10 5l4.5 4.5" />
    </Icon>
  );
}

export function ThreadIcon(props: IconProps) {
  return (
    <Icon {...props}>
      <path d="M4 5.5A1.5 1.5 0 0 1 5.5 4h9A1.5 1.5 0 0 1 16 5.5v6a1.5 1.5 0 0 1-1.5 1.5H9l-3.5 3v-3h0A1.5 1.5 0 0 1 4 11.5v-6Z" />
    </Icon>
  );
}

/** Two sliders: "settings". */
export function SlidersIcon(props: IconProps) {
  return (
    <Icon {...props}>
      <path d="M3 6h8M15 6h2M3 14h2M9 14h8" />
      <circle cx="13" cy="6" r="2" />
      <circle cx="7" cy="14" r="2" />
    </Icon>
  );
}

export function PaperclipIcon(props: IconProps) {
  return (
    <Icon {...props}>
      <path d="M14.5 9.5l-5 5a3 3 0 01-4.2-4.2l6-6a2 2 0 012.8 2.8l-6 6a1 1 0 01-1.4-1.4l5-5" />
    </Icon>
  );
}
