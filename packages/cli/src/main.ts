export function main(_argv: string[]): void {}
