export {
  defaultLayout,
  platformOpsEnv,
  startStack,
  type ComponentHandle,
  type Layout,
  type Stack,
  type StackOptions,
  type ServiceName,
} from './stack';
