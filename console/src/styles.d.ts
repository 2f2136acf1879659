// esbuild bundles the style sheet imported by main.tsx into the console's one CSS file.
declare module '*.css';
