export { startStack, type Stack, type StackOptions, type ServiceName } from './stack';
