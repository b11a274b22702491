/**
 * The style sheet of the service's small pages: one white card `width` wide on a grey page;
 * `extra` rules come before the outcome's.
 */
export function pageStyle(width: string, buttonGap: string, extra = ''): string {
  return `body { font-family: system-ui, sans-serif; margin: 0; background: #f5f5f5; }
main { max-width: ${width}; margin: 4rem auto; padding: 2rem; background: #fff; border-radius: 8px; }
label { display: block; margin-top: 1rem; }
input { width: 100%; box-sizing: border-box; padding: .5rem; margin-top: .25rem; }
button { margin-top: ${buttonGap}; padding: .5rem 1rem; }
${extra}#outcome { margin-top: 1rem; }
`;
}
